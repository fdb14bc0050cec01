//! An explicit HTTP proxy's tunnel (mod.rs; docs/ANALYSIS.md "Application facts").
//!
//! RFC 9110 §9.3.6: a client asks a proxy for a tunnel with `CONNECT host:port
//! HTTP/1.1`; the proxy opens its own TCP connection to host:port and answers with a
//! 2xx status once it has, after which both ends relay bytes blindly. So on such a
//! connection (review AB "droid", PCAPdroid `tests/pcap/http_proxy.pcap`: CONNECT in
//! frame 4, "HTTP/1.1 200 Connection established" in frame 6, 36 ms later on a ~10 ms
//! path):
//! - the wait from the CONNECT to the 2xx holds, beyond the round trip to the proxy,
//!   the proxy's own work: its connection to the far host (a name lookup where it
//!   needed one, then at least a SYN → SYN/ACK on the far path, RFC 9293 §3.5) — a
//!   capture taken on the proxy holds that connection too, and relay_chain.rs, run
//!   before these facts, names its frames where the proxy's answers waited on it;
//! - every round trip measured here ends at the proxy, not at the server, and every
//!   answer through the tunnel also crossed the proxy's path to the server and back:
//!   a wait for an answer is not the server's time alone.
//!
//! Where the proxy is the data sender whose answers the diagnosis timed ("X itself took
//! 611 ms of the pauses to answer messages …: time of its application", answer_waits.rs),
//! that sentence is rewritten: the answers came through the tunnel, so the waits were the
//! far server's and the proxy's path to it and back, not the proxy's own application
//! (PCAPdroid: 611 ms of answers over a 10-ms path to the proxy).
//!
//! The wait less the path RTT is a lower bound of the proxy's own time at any capture
//! point: near the client the wait holds the whole round trip to the proxy, near the
//! proxy it holds none of it.

use super::Facts;
use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;
use crate::analysis::verdict::relayed_waits::{self, Relayed};

/// The proxy's own time is named where it is at least this long, s (below, the
/// difference is the hosts' scheduling, not a far connection).
pub const MIN_FAR_S: f64 = 0.001;

/// The CONNECT exchanges of one connection (`Facts::tunnel`).
#[derive(Clone, Debug, Default)]
pub struct Tunnel {
    /// The latest CONNECT not answered yet: (direction, port, time s, frame).
    asked: Option<(u8, u16, f64, u32)>,
    /// The CONNECT a 2xx answered (`Opened`); nothing after it is read (the tunnel's
    /// bytes are the far protocol's, "HTTP/1.1 200" lines of a tunnelled HTTP too).
    pub opened: Option<Opened>,
}

/// A tunnel opened: the CONNECT's direction, port, frame and time, the answer's code,
/// frame and time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opened {
    pub client: u8,
    pub port: u16,
    pub connect_frame: u32,
    pub connect_t: f64,
    pub code: u16,
    pub answer_frame: u32,
    pub answer_t: f64,
}

impl Tunnel {
    /// A CONNECT request line from direction `dir`.
    pub fn connect(&mut self, dir: u8, port: u16, t: f64, frame: u32) {
        if self.opened.is_none() {
            self.asked = Some((dir, port, t, frame));
        }
    }

    /// A status line from direction `dir` (RFC 9110 §15: 1xx are interim, another
    /// answer follows; a final non-2xx, e.g. 407, refuses this CONNECT: a client that
    /// retries sends a new one).
    pub fn status(&mut self, dir: u8, code: u16, t: f64, frame: u32) {
        let Some((client, port, at, connect_frame)) = self.asked else { return };
        if self.opened.is_some() || dir == client || code < 200 || t < at {
            return;
        }
        self.asked = None;
        if (200..300).contains(&code) {
            self.opened = Some(Opened { client, port, connect_frame, connect_t: at, code, answer_frame: frame, answer_t: t });
        }
    }
}

/// Rewrites the answer-waits sentence (answer_waits.rs) and the application saving's
/// lead (wait_words.rs `own_waits_lead`) whose answering side is the proxy that opened
/// the tunnel (module comment), from the typed facts the diagnosis left (report.rs
/// `Said`); their numbers stay as they were. Through the tunnel the proxy's waits were
/// the far server's answers: "Had 10.4.20.103:8080 always had data ready (its own waits,
/// 1.2 s …)" read them as the proxy's own beside the tunnel's paragraph (review AE,
/// Kunalgarg Part4_q4 connection 4: the ClientHello, frame 54, answered by the far
/// server's ServerHello, frame 56, 49 ms later; suricata-verify bug-2769 connection 0).
pub fn rewrite_answer_waits(f: &Facts, c: &mut ConnectionSummary) {
    let Some(o) = f.tunnel.opened else { return };
    let Some(proxy) = c.endpoints.get(usize::from(1 - o.client.min(1))).cloned() else { return };
    relayed_waits::rewrite(c, &Relayed {
        answerer: &proxy,
        answer_close: "answers relayed through the proxy's tunnel, so time of the far server and of the proxy's path to it and back, not of the proxy's own application.",
        who: &format!("the far server behind {proxy}'s tunnel"),
        how: "relayed through the tunnel with the proxy's path to it and back",
    });
}

/// "The payload shows a tunnel through an HTTP proxy (RFC 9110 §9.3.6): …"; None where
/// no CONNECT was answered with a 2xx.
pub fn sentence(f: &Facts, c: &ConnectionSummary) -> Option<String> {
    let o = f.tunnel.opened?;
    let proxy = c.endpoints.get(usize::from(1 - o.client.min(1)))?;
    let wait = (o.answer_t - o.connect_t).max(0.0);
    let own = match c.path_rtt_ms.map(|ms| ms / 1000.0).filter(|&r| r > 0.0) {
        Some(rtt) if wait - rtt >= MIN_FAR_S => format!(
            ", {} beyond the path's {} round trip: at least that long was the proxy's own, its connection to the far host (a name lookup where it needed one, then the far path's SYN → SYN/ACK at least)",
            format_duration(wait - rtt),
            format_duration(rtt)
        ),
        _ => String::new(),
    };
    Some(format!(
        "The payload shows a tunnel through an HTTP proxy (RFC 9110 §9.3.6): the client asked {proxy} to CONNECT to port {} (frame {}) and the proxy answered {} {} later (frame {}){own}. The round trips measured on this connection end at the proxy, not at the far server, and every answer through the tunnel also crossed the proxy's path to the server and back.",
        o.port,
        o.connect_frame,
        o.code,
        format_duration(wait),
        o.answer_frame,
    ))
}
