//! Where was the capture taken, and what is the path's round-trip time?
//!
//! A passive monitor sees each round trip cut in two at the capture point (Jiang &
//! Dovrolis, "Passive estimation of TCP round-trip times", SIGCOMM CCR 2002, §2:
//! the SYN/ACK method; Wireshark's `tcp.analysis.initial_rtt` sums the same halves):
//! - the part towards host X: a segment passes the capture point, X answers, the
//!   answer passes the capture point again. Measured by the ACK of X's peer's data
//!   (data → ACK), by X echoing its peer's TSval (RFC 7323 §4), and in the handshake
//!   (SYN → SYN/ACK is the part towards the server, SYN/ACK → ACK the part towards
//!   the client);
//! - the path RTT is the sum of the two parts' minima.
//! At the data sender the part towards the sender is its own stack's turnaround
//! (µs), at the receiver the part towards the receiver is the receiver's ACK delay;
//! taking either for the RTT is the mistake issue 13 describes (a 45 ms path read as
//! 20 µs at a client-side capture). The vantage point follows from which part is
//! small: at most [`LOCAL_SHARE`] of the path (or one clock tick) is "local" — or, on a
//! LAN whose whole path is a few hundred µs, a host's own turnaround
//! ([`Parts::host_turnaround`]: at most [`HOST_TURNAROUND_S`], a third of the other part,
//! and no router between that host and the capture point by its TTLs).

use serde::Serialize;
use crate::analysis::format::format_duration;

/// Where the capture was taken, relative to the data sender (vantage.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Vantage {
    Sender,
    Receiver,
    Middle,
    Unknown,
}

/// A part of the round trip this small (share of the path RTT) is the capturing host's own.
pub const LOCAL_SHARE: f64 = 0.1;

/// The longest a host's own turnaround is taken to be, s: the time its kernel takes to
/// answer a segment that reached it — an ACK, a SYN/ACK — is tens of µs (a Linux or
/// macOS client's 19 µs in jovair1994 `rdp.pcap`; 16 µs the median of the local parts
/// of 301 sub-2 ms connections of the corpus, 48 µs the 95th percentile). On a LAN of a
/// 0.1–0.4 ms path it exceeds [`LOCAL_SHARE`] of the path.
pub const HOST_TURNAROUND_S: f64 = 50e-6;

/// A part taken for a host's turnaround by [`HOST_TURNAROUND_S`] is at most this share
/// of the other part: a capture point between two hosts adds the wire and the switches
/// to both parts, one at a host adds nothing to its own.
pub const HOST_TURNAROUND_RATIO: f64 = 3.0;

/// Minimum of each part of the round trip, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Parts {
    /// `toward[d]`: capture point → the receiver of direction d's segments → capture
    /// point, from direction d's samples and the handshake; None if never measured.
    pub toward: [Option<f64>; 2],
    /// Which of them came from the handshake (for the method's words).
    pub from_handshake: [bool; 2],
    /// Share of each direction's trusted samples below one tick of a coarse clock
    /// (1 where unknown): see [`resolves_part`].
    pub below_tick_share: [f64; 2],
    /// `no_router[d]`: the host `toward[d]` reaches (the sender of the other direction)
    /// sent every packet with one initial TTL ([`sent_with_initial_ttl`]), so no router
    /// stands between it and the capture point.
    pub no_router: [bool; 2],
    /// `capture_host[d]`: whether the host `toward[d]` reaches is the one the capture
    /// was taken on by its own frames' checksums (capture/capture_host.rs); None where
    /// the capture does not tell. It decides over the timing (at_capture_host.rs).
    pub capture_host: [Option<bool>; 2],
}

impl Parts {
    /// Combines the samples' minima (`samples_min[d]`: smallest trusted sample of
    /// direction d, s) with the handshake's two halves.
    /// `handshake`: (client direction, SYN→SYN/ACK, SYN/ACK→ACK), s.
    pub fn new(samples_min: [Option<f64>; 2], handshake: Option<(u8, Option<f64>, Option<f64>)>) -> Parts {
        let mut p = Parts { toward: samples_min, from_handshake: [false; 2], below_tick_share: [1.0; 2], no_router: [false; 2], capture_host: [None; 2] };
        if let Some((client, to_server, to_client)) = handshake {
            let c = (client & 1) as usize;
            // SYN → SYN/ACK: the client's segment answered by the server = the part
            // of direction client→server; SYN/ACK → ACK the part of server→client.
            for (d, half) in [(c, to_server), (1 - c, to_client)] {
                if let Some(h) = half.filter(|h| h.is_finite() && *h >= 0.0) {
                    if p.toward[d].map_or(true, |s| h <= s) {
                        p.toward[d] = Some(h);
                        p.from_handshake[d] = true;
                    }
                }
            }
        }
        p
    }

    /// Whether `toward[d]` is the turnaround of a host at the capture point by its
    /// absolute size, where it is more than [`LOCAL_SHARE`] of a µs path: at most
    /// [`HOST_TURNAROUND_S`], no router between that host and the capture point
    /// (`no_router`: a host beyond one is not where the capture was taken), and the
    /// other part above [`HOST_TURNAROUND_S`] and at least [`HOST_TURNAROUND_RATIO`]
    /// times it (two host-sized parts — a loopback, two VMs on one bridge, a tap on a
    /// fast LAN — tell no side). jovair1994 `rdp.pcap`, captured on the client: 19 µs
    /// towards it + 108 µs towards the Windows server read "middle".
    /// Where the capture's host is known ([`Parts::capture_host`]) that decides instead.
    pub fn host_turnaround(&self, d: usize) -> bool {
        let d = d & 1;
        if let Some(known) = self.capture_host[d] {
            return known && self.toward[d].is_some();
        }
        match (self.toward[d], self.toward[1 - d]) {
            (Some(near), Some(far)) => {
                self.no_router[d] && near <= HOST_TURNAROUND_S && far > HOST_TURNAROUND_S && far >= HOST_TURNAROUND_RATIO * near
            }
            _ => false,
        }
    }
}

/// Whether a direction's packets (`ttl`: their (min, max) TTL or hop limit) all left
/// with one initial TTL ([`INITIAL_TTLS`]): no router between their sender and the
/// capture point (RFC 791 §3.2, RFC 8200 §3).
pub fn sent_with_initial_ttl(ttl: Option<(u8, u8)>) -> bool {
    ttl.is_some_and(|(lo, hi)| lo == hi && INITIAL_TTLS.contains(&lo))
}

/// `PathRtt::method` where every round trip was shorter than one tick (no RTT).
pub const BELOW_ONE_TICK: &str = "every round trip was shorter than one tick of the capture clock";

/// The initial retransmission timeout, s (RFC 6298 §2.1; RFC 9293 §3.8.1): a SYN or
/// SYN/ACK not answered within it is sent again.
pub const INITIAL_RTO_S: f64 = 1.0;

/// One half of the handshake as a part of the round trip (SYN → SYN/ACK towards the
/// server, SYN/ACK → ACK towards the client), s, from `sent_ns` (the last copy the
/// capture saw) to `answer_ns`; None where it does not time the path:
/// - `resent`: the segment was sent more than once before its answer, which may answer
///   an earlier copy (Karn & Partridge 1987, RFC 6298 §3; RFC 9293 §3.8.1): a SYN re-sent
///   after 1 s and answered 0.1 s later read as a 1.1 s round trip on a 50 ms path;
/// - longer than [`INITIAL_RTO_S`]: the sender's timer fired by then, so a copy the
///   capture did not see was sent, or the answer is itself a re-send after its lost
///   original (a SYN/ACK 3.1 s after a lone SYN, backed off twice): ambiguous as well;
/// - with a coarse clock, 0: it says only "below a tick" (the samples decide).
pub fn handshake_half(sent_ns: i64, answer_ns: i64, resent: bool, tick: f64) -> Option<f64> {
    let s = (answer_ns - sent_ns) as f64 / 1e9;
    (!resent && s <= INITIAL_RTO_S && (tick <= 0.001 || s >= tick)).then_some(s)
}

/// The path's round trip and where the capture point sits on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathRtt {
    pub vantage: Vantage,
    /// Seconds; None when not even one part was measured (or both were below a tick).
    pub rtt: Option<f64>,
    pub method: String,
}

impl PathRtt {
    /// The round trip the retransmission kinds hold a quiet time against, s: the RTT,
    /// or, where every round trip was shorter than one tick (both parts measured, their
    /// sum below the tick; `tick` as given to [`path_rtt`]), two ticks: one for the RTT
    /// and one for the quiet time, counted in ticks too (a fast retransmission sent just
    /// after its duplicate ACK can land in the next tick). The kinds need only such a
    /// bound (a retransmission after much more quiet than a round trip was sent by a
    /// timer): without it a 206 ms timeout on a 2 µs veth, where the µs clock saw most
    /// round trips as 0, read as a fast retransmission (kernel: TCPTimeouts 1).
    pub fn timer_bound(&self, parts: &Parts, tick: f64) -> Option<f64> {
        let below_tick = parts.toward[0].zip(parts.toward[1]).is_some_and(|(a, b)| a + b < tick || a + b <= 0.0);
        self.rtt.or(below_tick.then_some(2.0 * tick.max(0.0)))
    }
}

/// The TTLs (hop limits) stacks start their datagrams with: 64 (Linux, macOS, the BSDs,
/// RFC 1700's default), 128 (Windows), 255 (network equipment, Solaris). Each router on
/// the way takes one off (RFC 791 §3.2; RFC 8200 §3), a switch or a tap none.
pub const INITIAL_TTLS: [u8; 3] = [64, 128, 255];

/// Which direction's sender sits at the capture point by the TTLs, where they tell: every
/// packet of that direction left with one initial value, unchanged (no router between its
/// host and the capture point), and every packet of the other arrived with fewer than an
/// initial value (at least one router between). `ttl[d]`: (min, max) of direction d.
/// None when both or neither look local (one LAN segment, or a capture in the middle).
pub fn local_by_ttl(ttl: [Option<(u8, u8)>; 2]) -> Option<u8> {
    let initial = sent_with_initial_ttl;
    let routed = |t: Option<(u8, u8)>| t.is_some_and(|(lo, hi)| !INITIAL_TTLS.contains(&lo) && !INITIAL_TTLS.contains(&hi) && lo == hi);
    match (initial(ttl[0]) && routed(ttl[1]), initial(ttl[1]) && routed(ttl[0])) {
        (true, false) => Some(0),
        (false, true) => Some(1),
        _ => None,
    }
}

/// `data_dir`: the data direction; `tick`: the capture clock's resolution (s, 0 if fine).
pub fn path_rtt(parts: &Parts, data_dir: u8, tick: f64) -> PathRtt {
    path_rtt_with_ttl(parts, data_dir, tick, None)
}

/// [`path_rtt`], told by the TTLs which end is local (`local`: the direction whose sender
/// sits at the capture point, [`local_by_ttl`]) where only one part of the round trip
/// was measured: the part through the capture's own host is its turnaround, not the
/// path (a client-side capture without handshake or timestamps measures only its own
/// ACK delay, 0.12 ms on a 400 ms path).
pub fn path_rtt_with_ttl(parts: &Parts, data_dir: u8, tick: f64, local: Option<u8>) -> PathRtt {
    if let Some(at_host) = super::at_capture_host::path_rtt(parts, data_dir, tick) {
        return at_host;
    }
    let d = (data_dir & 1) as usize;
    let local_is_receiver = local.map(|l| l as usize == 1 - d);
    match (parts.toward[1 - d], parts.toward[d], local_is_receiver) {
        (None, Some(r), Some(true)) => {
            return PathRtt {
                vantage: Vantage::Receiver,
                rtt: None,
                method: format!(
                    "{} to the receiver and back, the receiver's own turnaround: the capture is on its side \
                     (its packets leave with an initial TTL, the sender's arrive with fewer hops left); the part \
                     towards the sender was never measured (no handshake, no timestamps), so the path RTT is unknown",
                    format_duration(r)
                ),
            };
        }
        (Some(s), None, Some(false)) => {
            return PathRtt {
                vantage: Vantage::Sender,
                rtt: None,
                method: format!(
                    "{} to the sender and back, the sender's own turnaround: the capture is on its side \
                     (its packets leave with an initial TTL, the receiver's arrive with fewer hops left); the part \
                     towards the receiver was never measured, so the path RTT is unknown",
                    format_duration(s)
                ),
            };
        }
        (None, Some(r), Some(false)) if r > tick => {
            return PathRtt {
                vantage: Vantage::Sender,
                rtt: Some(r),
                method: format!(
                    "{} to the receiver and back; the capture is on the sender's side (its packets leave \
                     with an initial TTL, the receiver's arrive with fewer hops left), so this is the path RTT",
                    format_duration(r)
                ),
            };
        }
        (Some(s), None, Some(true)) if s > tick => {
            return PathRtt {
                vantage: Vantage::Receiver,
                rtt: Some(s),
                method: format!(
                    "{} to the sender and back; the capture is on the receiver's side (its packets leave \
                     with an initial TTL, the sender's arrive with fewer hops left), so this is the path RTT",
                    format_duration(s)
                ),
            };
        }
        _ => {}
    }
    path_rtt_by_parts(parts, data_dir, tick)
}

/// Whether a time read on a clock of resolution `tick` (s) is more than the clock's
/// own uncertainty: a difference of k ticks is anywhere between k − 1 and k + 1 ticks
/// (both ends are rounded), so below two ticks it only says "about a tick or less".
/// A fine clock (≤ 1 ms, as [`path_rtt`]'s callers judge it) resolves everything.
pub fn resolves(t: f64, tick: f64) -> bool {
    tick <= 0.001 || t >= 2.0 * tick
}

/// Whether a part of the round trip (`v` s, `below_tick_share` of its samples read 0)
/// stands above a coarse clock's uncertainty: at two ticks or more ([`resolves`]), or at
/// a tick or more with at most [`RESOLVED_BELOW_TICK_SHARE`] of its samples read below
/// one: a part under one tick reads 0 in the share of its samples by which it falls
/// short, so one never read 0 over many samples is a tick or more (`coarse-clock-10ms`:
/// a 10.3 ms path on a 10 ms clock, its ACKs read 10 or 20 ms), while one read 0 in half
/// its samples is about half a tick, as the other part may be.
pub fn resolves_part(v: f64, below_tick_share: f64, tick: f64) -> bool {
    resolves(v, tick) || (v >= tick && below_tick_share <= RESOLVED_BELOW_TICK_SHARE)
}

/// See [`resolves_part`].
pub const RESOLVED_BELOW_TICK_SHARE: f64 = 0.1;

/// How [`PathRtt::method`] begins where every round trip read as about one tick.
const WITHIN_A_TICK: &str = "≤ one tick of the capture clock";

/// The method's words where every round trip read as about one tick (`resolves` false).
fn within_a_tick(tick: f64) -> String {
    format!(
        "{WITHIN_A_TICK} ({}): every round trip read as one tick at most, which this \
         clock cannot time finer, nor tell which side of the capture point it lies on",
        format_duration(tick)
    )
}

/// Whether a path RTT's method (`connection.pathRttMethod`) says the RTT is only "≤ one
/// tick": the headline then says so too (diagnosis phrases.rs `rtt_phrase`).
pub fn is_within_a_tick(method: &str) -> bool {
    method.starts_with(WITHIN_A_TICK)
}

pub(super) fn path_rtt_by_parts(parts: &Parts, data_dir: u8, tick: f64) -> PathRtt {
    let d = (data_dir & 1) as usize;
    // Part towards the data receiver (measured by the data's ACKs) and towards the
    // data sender (measured by the receiver's segments being answered).
    let (to_receiver, to_sender) = (parts.toward[d], parts.toward[1 - d]);
    let words = |v: f64, hs: bool, what: &str| {
        format!("{} {}{}", format_duration(v), what, if hs { " (handshake)" } else { "" })
    };
    match (to_sender, to_receiver) {
        (Some(s), Some(r)) => {
            let rtt = s + r;
            if rtt < tick || rtt <= 0.0 {
                return PathRtt {
                    vantage: Vantage::Unknown,
                    rtt: None,
                    method: BELOW_ONE_TICK.into(),
                };
            }
            let local = (LOCAL_SHARE * rtt).max(tick);
            // With a coarse clock a part read as k ticks lies anywhere between k − 1 and
            // k + 1 ticks: a larger part of one tick against a smaller of none may be two
            // equal halves, so the vantage needs the larger part at two ticks at least.
            let larger = if s >= r { (s, parts.below_tick_share[1 - d]) } else { (r, parts.below_tick_share[d]) };
            let resolved = resolves_part(larger.0, larger.1, tick);
            let vantage = if !resolved {
                Vantage::Unknown
            } else if s <= local || parts.host_turnaround(1 - d) {
                Vantage::Sender
            } else if r <= local || parts.host_turnaround(d) {
                Vantage::Receiver
            } else {
                Vantage::Middle
            };
            let parts_words = format!(
                "{} + {}",
                words(r, parts.from_handshake[d], "to the receiver and back"),
                words(s, parts.from_handshake[1 - d], "to the sender and back")
            );
            let method = if resolved || resolves(rtt, tick) { parts_words } else { within_a_tick(tick) };
            PathRtt { vantage, rtt: Some(rtt), method }
        }
        (None, Some(r)) if r > tick => PathRtt {
            vantage: Vantage::Unknown,
            rtt: Some(r),
            method: if !resolves_part(r, parts.below_tick_share[d], tick) { within_a_tick(tick) } else { format!(
                "{}; the part towards the sender was never measured (no handshake, no timestamps), \
                 so this is the path RTT only if the capture was taken at the sender",
                words(r, false, "to the receiver and back")
            ) },
        },
        (Some(s), None) if s > tick => PathRtt {
            vantage: Vantage::Unknown,
            rtt: Some(s),
            method: format!(
                "{}; the part towards the receiver was never measured, so this is a lower bound",
                words(s, false, "to the sender and back")
            ),
        },
        _ => PathRtt { vantage: Vantage::Unknown, rtt: None, method: "no round trip could be measured".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receiver_side_download_uses_the_upstream_part() {
        // Client (dir 0) downloads from the server (dir 1 = data). Captured at the
        // client: SYN→SYN/ACK 40 ms (to the server and back), SYN/ACK→ACK 30 µs;
        // the data's ACKs leave 20 µs after the data arrives.
        let p = Parts::new([Some(0.039), Some(0.000_02)], Some((0, Some(0.040), Some(0.000_03))));
        let r = path_rtt(&p, 1, 0.000_001);
        assert_eq!(r.vantage, Vantage::Receiver);
        // 20 µs (data → ACK, smaller than the handshake's 30 µs) + 39 ms (the
        // client's segments answered by the server, smaller than the handshake's 40 ms).
        assert!((r.rtt.unwrap() - 0.039_02).abs() < 1e-12);
    }

    #[test]
    fn sender_side_and_middle() {
        // Sender-side upload: data's ACKs 10 ms, the sender's own turnaround 5 µs.
        let p = Parts::new([Some(0.010), Some(0.000_005)], None);
        assert_eq!(path_rtt(&p, 0, 0.0).vantage, Vantage::Sender);
        // A tap in the middle: 6 ms + 4 ms.
        let p = Parts::new([Some(0.006), Some(0.004)], None);
        let r = path_rtt(&p, 0, 0.0);
        assert_eq!((r.vantage, r.rtt), (Vantage::Middle, Some(0.010)));
    }

    #[test]
    fn a_host_turnaround_on_a_lan_is_local() {
        // jovair1994 rdp.pcap, captured on the client (TTL 64) of a Windows server (TTL
        // 128) on one LAN: the server's data is ACKed by the client in 19 µs, the client's
        // segments answered in 108 µs — 15 % of 127 µs, a host's own turnaround.
        let mut p = Parts::new([Some(0.000_108), Some(0.000_019)], None);
        assert_eq!(path_rtt(&p, 1, 0.000_001).vantage, Vantage::Middle);
        p.no_router = [true, true];
        assert_eq!(path_rtt(&p, 1, 0.000_001).vantage, Vantage::Receiver);
        // A router between the client and the capture: not its host, middle.
        p.no_router = [true, false];
        assert_eq!(path_rtt(&p, 1, 0.000_001).vantage, Vantage::Middle);
        // Two host-sized parts (a loopback, a tap on a fast LAN), or one over a third of
        // the other, or above 50 µs: no side told.
        for toward in [[Some(0.000_016), Some(0.000_015)], [Some(0.000_108), Some(0.000_040)], [Some(0.000_400), Some(0.000_060)]] {
            let mut p = Parts::new(toward, None);
            p.no_router = [true, true];
            assert_eq!(path_rtt(&p, 1, 0.000_001).vantage, Vantage::Middle, "{toward:?}");
        }
    }

    #[test]
    fn one_part_only_is_unknown() {
        let p = Parts::new([Some(0.010), None], None);
        let r = path_rtt(&p, 0, 0.0);
        assert_eq!((r.vantage, r.rtt), (Vantage::Unknown, Some(0.010)));
        assert_eq!(path_rtt(&Parts::default(), 0, 0.0).rtt, None);
    }

    #[test]
    fn one_part_and_the_ttls_tell_the_vantage() {
        // A download captured at the client without handshake or timestamps: only the
        // data's ACKs (118 µs: the client's own ACK delay) are measured. The client's
        // packets leave with TTL 128 (Windows), the server's arrive with 47.
        // Direction 0 is the server's data; its ACKs' part is toward[0].
        let p = Parts::new([Some(0.000_118), None], None);
        let local = local_by_ttl([Some((47, 47)), Some((128, 128))]);
        assert_eq!(local, Some(1));
        let r = path_rtt_with_ttl(&p, 0, 0.000_001, local);
        assert_eq!((r.vantage, r.rtt), (Vantage::Receiver, None));
        // The same at the server: the measured part is the whole path.
        let local = local_by_ttl([Some((64, 64)), Some((50, 50))]);
        let r = path_rtt_with_ttl(&p, 0, 0.000_001, local);
        assert_eq!((r.vantage, r.rtt), (Vantage::Sender, Some(0.000_118)));
        // One LAN (both initial), a tap in the middle (neither), a TTL that changes: nothing told.
        assert_eq!(local_by_ttl([Some((64, 64)), Some((128, 128))]), None);
        assert_eq!(local_by_ttl([Some((60, 60)), Some((50, 50))]), None);
        assert_eq!(local_by_ttl([Some((64, 64)), Some((50, 52))]), None);
        assert_eq!(path_rtt_with_ttl(&p, 0, 0.000_001, None).vantage, Vantage::Unknown);
    }

    #[test]
    fn one_tick_against_none_tells_no_vantage() {
        // A 16.67 ms clock (60 Hz): the data's ACKs read one tick, the other part none. A
        // part read as k ticks lies between k − 1 and k + 1 ticks, so both may be ~8 ms:
        // the vantage is unknown and the RTT is "≤ one tick" (it read "Captured at the
        // sender; path RTT 16.67 ms (17 ms to the receiver and back + 0 s …)").
        let tick = 0.016_666;
        let p = Parts::new([Some(tick), Some(0.0)], None);
        let r = path_rtt(&p, 0, tick);
        assert_eq!((r.vantage, r.rtt), (Vantage::Unknown, Some(tick)));
        assert!(r.method.starts_with("≤ one tick of the capture clock (17 ms)"), "{}", r.method);
        // One tick never read as 0 (a 10.3 ms path on a 10 ms clock: its samples read 10
        // or 20 ms) is a tick or more; the other part, read 0, less than one.
        let mut p = Parts::new([Some(tick), Some(0.0)], None);
        p.below_tick_share = [0.0, 1.0];
        assert_eq!(path_rtt(&p, 0, tick).vantage, Vantage::Sender);
        // Read 0 in 41 of 85 samples: about half a tick, as the other part may be.
        p.below_tick_share = [41.0 / 85.0, 1.0];
        assert_eq!(path_rtt(&p, 0, tick).vantage, Vantage::Unknown);
        // Two ticks against none: the larger part is more than a tick, the other less.
        let p = Parts::new([Some(2.0 * tick), Some(0.0)], None);
        let r = path_rtt(&p, 0, tick);
        assert_eq!(r.vantage, Vantage::Sender);
        assert_eq!(r.method, "33 ms to the receiver and back + 0 s to the sender and back");
    }

    #[test]
    fn a_handshake_half_times_the_path_only_when_sent_once_within_the_initial_rto() {
        // Karn (RFC 6298 §3): a SYN sent twice may be answered for the first copy.
        assert_eq!(handshake_half(0, 50_000_000, false, 0.0), Some(0.05));
        assert_eq!(handshake_half(1_000_000_000, 1_100_000_000, true, 0.0), None);
        // A lone SYN answered after 3.1 s: a timer fired by then (RFC 6298 §2.1: 1 s).
        assert_eq!(handshake_half(0, 3_100_000_000, false, 0.0), None);
        assert_eq!(handshake_half(0, 1_000_000_000, false, 0.0), Some(1.0));
        // A coarse clock's 0: below a tick, no measure.
        assert_eq!(handshake_half(0, 0, false, 0.010), None);
    }

    #[test]
    fn ten_ms_clock() {
        // The local part reads 0 (below one tick), the path 40 ms: a receiver.
        let p = Parts::new([Some(0.040), Some(0.0)], None);
        let r = path_rtt(&p, 1, 0.010);
        assert_eq!((r.vantage, r.rtt), (Vantage::Receiver, Some(0.040)));
        // Both parts below a tick: nothing can be said.
        let p = Parts::new([Some(0.0), Some(0.0)], None);
        assert_eq!(path_rtt(&p, 1, 0.010).rtt, None);
    }
}
