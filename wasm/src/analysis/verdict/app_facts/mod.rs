//! Application facts (docs/ANALYSIS.md "Application facts"; issue 39 review X classes
//! C-CONTROL-CHANNEL-UNTOLD and the SMTP PIPELINING saving): what the first payload
//! line of a segment (decode/app_line.rs, a 4-byte token; no payload is kept) proves
//! about the application, gathered per connection while the capture is read and said
//! once the summaries are made.
//!
//! - An FTP control connection (RFC 959): the server's preliminary reply (1xx,
//!   "150 Opening … data connection") to a data command (RETR, STOR, LIST, …) and its
//!   completion ("226 Transfer complete") bound a file transfer that ran on a separate
//!   data connection, at the port a 227/229 reply (passive) or a PORT/EPRT command
//!   (active) named. The time between them is the transfer's, not the application's
//!   think time; ftp.rs says where it lives (a connection of this capture, or none).
//! - SMTP PIPELINING (RFC 2920): the server offered it in its EHLO reply, the client
//!   still sent MAIL, RCPT and DATA each after the previous command's reply; smtp.rs
//!   names the turns a group would have removed.
//! - An explicit HTTP proxy (RFC 9110 §9.3.6): the client's `CONNECT host:port` and the
//!   proxy's 2xx answer make the connection a tunnel; proxy.rs says what that means
//!   for the round trips and the waits measured on it.
//!
//! Memory: a side table of the analyzer, one entry per connection that carried such a
//! line (at most [`MAX_CONNECTIONS`]); other connections pay nothing.

mod ftp;
mod proxy;
mod smtp;

use crate::analysis::report::ConnectionSummary;
use crate::decode::app_line::{self as line, AppLine};
use std::collections::HashMap;

pub use smtp::pipelining_sentence;

/// Connections whose facts are kept, at most (a capture of many mail or FTP sessions).
pub const MAX_CONNECTIONS: usize = 4096;
/// Data ports kept per control connection (the count goes on).
pub(super) const MAX_PORTS: usize = 8;

/// The facts of one connection (module comment).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Direction (0/1, as the analyzer's) of the first reply, and of the first command.
    replies_from: Option<u8>,
    commands_from: Option<u8>,
    replies: u32,
    ftp_commands: u32,
    /// A data command (RETR, STOR, LIST …) still waits for its preliminary reply.
    awaiting: bool,
    /// A preliminary reply opened a transfer: (time s, frame).
    open: Option<(f64, u32)>,
    pub transfers: u32,
    /// Seconds from each preliminary reply to its completion, summed.
    pub transfer_s: f64,
    /// The longest transfer: (seconds, preliminary reply's frame, completion's frame).
    pub longest: Option<(f64, u32, u32)>,
    /// Data ports named (227/229 replies, PORT/EPRT commands): the first few, and how many.
    pub ports: Vec<u16>,
    pub ports_named: u32,
    /// SMTP: EHLO/HELO seen; the frame of the EHLO reply naming PIPELINING.
    hello: bool,
    pub pipelining: Option<u32>,
    /// The client sent a MAIL or RCPT with the next command in the same segment.
    pub client_grouped: bool,
    /// A MAIL or RCPT alone in its segment: (sent s, frame, its reply's time).
    pending: Option<(f64, u32, Option<f64>)>,
    /// RCPT and DATA commands sent only after the previous command's reply, the waits
    /// for those replies summed (s), and the first such wait's (command, reply) frames.
    pub separate: u32,
    pub waits: f64,
    pub first_wait: Option<(u32, u32)>,
    reply_frame: u32,
    /// HTTP CONNECT and the proxy's answer (proxy.rs).
    pub tunnel: proxy::Tunnel,
}

impl Facts {
    /// The payload proved an FTP control connection with at least one transfer:
    /// FTP commands one way, replies the other, a preliminary and a completion reply.
    pub fn ftp_transfers(&self) -> bool {
        self.ftp_commands > 0 && self.transfers > 0 && self.commands_from.is_some() && self.commands_from != self.replies_from
    }

    /// The payload proved an SMTP client that could have grouped its commands and did not.
    pub fn smtp_unpipelined(&self) -> bool {
        self.hello && self.pipelining.is_some() && !self.client_grouped && self.separate > 0 && self.commands_from != self.replies_from
    }

    fn note(&mut self, dir: u8, l: AppLine, t: f64, frame: u32) {
        match l.kind() {
            // HTTP lines are no FTP/SMTP command or reply: they never set whose those are.
            line::KIND_HTTP_CONNECT => self.tunnel.connect(dir, l.value(), t, frame),
            line::KIND_HTTP_STATUS => self.tunnel.status(dir, l.value(), t, frame),
            line::KIND_REPLY | line::KIND_PASSIVE_REPLY => {
                if *self.replies_from.get_or_insert(dir) != dir {
                    return;
                }
                self.replies += 1;
                self.reply(l, t, frame);
            }
            0 => {}
            kind => {
                if *self.commands_from.get_or_insert(dir) != dir {
                    return;
                }
                self.command(kind, l, t, frame);
            }
        }
    }

    fn reply(&mut self, l: AppLine, t: f64, frame: u32) {
        if l.kind() == line::KIND_PASSIVE_REPLY {
            self.port(l.value());
        }
        let code = if l.kind() == line::KIND_PASSIVE_REPLY { 227 } else { l.value() };
        match code {
            100..=199 if self.awaiting => {
                self.awaiting = false;
                self.open = Some((t, frame));
                if l.flag() {
                    self.close(t, frame); // the completion in the same segment
                }
            }
            100..=199 => {}
            // Only "226 … transfer complete" counts (the words say 226); another
            // completion (250, or 4xx/5xx: the transfer failed) ends it uncounted.
            226 => {
                self.awaiting = false;
                self.close(t, frame);
            }
            _ => {
                self.awaiting = false;
                self.open = None;
            }
        }
        if code == 250 && l.flag() {
            self.pipelining.get_or_insert(frame);
        }
        if let Some((_, _, reply @ None)) = &mut self.pending {
            *reply = Some(t);
            self.reply_frame = frame;
        }
    }

    /// A completion reply: the open transfer, if any, ended at `t`.
    fn close(&mut self, t: f64, frame: u32) {
        let Some((at, opened)) = self.open.take() else { return };
        let s = (t - at).max(0.0);
        self.transfers += 1;
        self.transfer_s += s;
        if self.longest.is_none_or(|(l, _, _)| s > l) {
            self.longest = Some((s, opened, frame));
        }
    }

    fn port(&mut self, p: u16) {
        self.ports_named += 1;
        if self.ports.len() < MAX_PORTS && !self.ports.contains(&p) {
            self.ports.push(p);
        }
    }

    fn command(&mut self, kind: u8, l: AppLine, t: f64, frame: u32) {
        match kind {
            line::KIND_FTP_COMMAND => self.ftp_commands += 1,
            line::KIND_FTP_DATA_COMMAND => {
                self.ftp_commands += 1;
                self.awaiting = true;
            }
            line::KIND_FTP_PORT => {
                self.ftp_commands += 1;
                self.port(l.value());
            }
            line::KIND_SMTP_HELLO => self.hello = true,
            _ => self.smtp_command(kind, l, t, frame),
        }
    }

    /// MAIL, RCPT or DATA (RFC 2920 §3.1: MAIL and RCPT may be followed by more
    /// commands in their group; DATA ends one).
    fn smtp_command(&mut self, kind: u8, l: AppLine, t: f64, frame: u32) {
        if l.flag() && kind != line::KIND_SMTP_DATA {
            self.client_grouped = true;
        }
        let pending = self.pending.take();
        if let (Some((sent, command, Some(reply))), true) = (pending, kind != line::KIND_SMTP_MAIL) {
            self.separate += 1;
            self.waits += (reply - sent).max(0.0);
            self.first_wait.get_or_insert((command, self.reply_frame));
        }
        if kind != line::KIND_SMTP_DATA && !l.flag() && self.pipelining.is_some() {
            self.pending = Some((t, frame, None));
        }
    }
}

/// The analyzer's side table: connection index → its facts.
#[derive(Debug, Default)]
pub struct Table(HashMap<u32, Facts>);

impl Table {
    /// One segment whose first payload line is `l` (not 0), of connection `index`, in
    /// direction `dir`, at `t` s, frame `frame` (1-based).
    pub fn note(&mut self, index: u32, dir: u8, l: AppLine, t: f64, frame: u32) {
        // An HTTP status line alone proves nothing kept here (every HTTP/1.x answer
        // has one): it is read only on a connection that already carried a line.
        if (self.0.len() >= MAX_CONNECTIONS || l.kind() == line::KIND_HTTP_STATUS) && !self.0.contains_key(&index) {
            return;
        }
        self.0.entry(index).or_default().note(dir, l, t, frame);
    }

    /// The facts of connection `index`, if any line was seen.
    pub fn get(&self, index: u32) -> Option<&Facts> {
        self.0.get(&index)
    }

    /// Adds each connection's sentences to its diagnosis (module comment); ids are
    /// the analyzer's indices. True when a sentence names or denies other connections
    /// (`Analysis::linked_text`).
    pub fn attach(self, conns: &mut [ConnectionSummary]) -> bool {
        let mut linked = false;
        let mut ids: Vec<u32> = self.0.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let f = &self.0[&id];
            let i = id as usize;
            if i >= conns.len() {
                continue;
            }
            let mut add = Vec::new();
            if f.ftp_transfers() {
                add.extend(ftp::sentence(f, conns, i));
                linked |= !add.is_empty();
            }
            if f.smtp_unpipelined() {
                add.extend(pipelining_sentence(f, &conns[i]));
            }
            add.extend(proxy::sentence(f, &conns[i]));
            proxy::rewrite_answer_waits(f, &mut conns[i]);
            let text = &mut conns[i].diagnosis.text;
            for s in add {
                insert_after_headline(text, &s);
            }
        }
        linked
    }
}

/// `s` after the first sentence of `text` that speaks of the turns (the headline's, or
/// the loss headline's comparison with them), else at the end.
fn insert_after_headline(text: &mut String, s: &str) {
    let b = text.as_bytes();
    let end = |from: usize| (from..b.len()).find(|&i| b[i] == b'.' && (i + 1 == b.len() || b[i + 1] == b' ' && b.get(i + 2).is_some_and(u8::is_ascii_uppercase)));
    match text.find("turns").and_then(end) {
        Some(at) if at + 1 < text.len() => text.insert_str(at + 1, &format!(" {s}")),
        _ => {
            text.push(' ');
            text.push_str(s);
        }
    }
}
