//! The first line of a segment's payload, where it is an FTP or SMTP command or reply
//! (analysis/app_facts: "Application facts", docs/ANALYSIS.md). The decoder keeps no
//! payload: it reads these few bytes once and keeps a 4-byte token per segment, 0 for
//! any payload that is not such a line (one comparison of the first byte for most).
//!
//! Lines (RFC 959 §4.1–4.2, §5.4; RFC 5321 §4.1, §4.2; RFC 2428; RFC 2920):
//! - a reply: three digits then a space or '-' ("226 Transfer complete");
//!   227 and 229 carry the passive data port ("(h1,h2,h3,h4,p1,p2)", "(|||port|)");
//!   a 250 reply of several lines says whether one of them is "PIPELINING" (EHLO);
//! - an FTP command: USER, PASS, CWD, TYPE, … and the data-moving RETR, STOR, APPE,
//!   STOU, LIST, NLST, MLSD; PORT and EPRT carry the active data port;
//! - an SMTP command: EHLO/HELO, MAIL FROM:, RCPT TO:, DATA, with whether the segment
//!   holds another command line after the first (the client pipelined, RFC 2920);
//! - an HTTP/1.x `CONNECT host:port HTTP/1.1` request line (RFC 9110 §9.3.6: the client
//!   asks a proxy for a tunnel to host:port), the port in the value, and an HTTP/1.x
//!   status line (`HTTP/1.1 200 Connection established`, RFC 9112 §4), the code in the
//!   value: the proxy's answer.

/// A segment's first payload line, packed: bits 0–7 the kind (`KIND_*`), 8–23 the
/// value (a reply's code, or a data port), bit 24 [`MORE_LINES`] / [`PIPELINING`] (on
/// a 1xx reply: a "226" line follows in the same segment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppLine(pub u32);

pub const KIND_REPLY: u8 = 1;
pub const KIND_FTP_COMMAND: u8 = 2;
pub const KIND_FTP_DATA_COMMAND: u8 = 3;
/// PORT / EPRT: the client's data port in the value.
pub const KIND_FTP_PORT: u8 = 4;
pub const KIND_SMTP_HELLO: u8 = 5;
pub const KIND_SMTP_MAIL: u8 = 6;
pub const KIND_SMTP_RCPT: u8 = 7;
pub const KIND_SMTP_DATA: u8 = 8;
/// A 227 / 229 reply: the server's passive data port in the value (the code is 227).
pub const KIND_PASSIVE_REPLY: u8 = 9;
/// `CONNECT authority HTTP/1.x`: the port the tunnel is asked to reach in the value.
pub const KIND_HTTP_CONNECT: u8 = 10;
/// `HTTP/1.x NNN …`: the status code in the value.
pub const KIND_HTTP_STATUS: u8 = 11;

/// On a command: another command line follows the first in the same segment.
/// On a 250 reply: one of its lines is the PIPELINING extension.
pub const MORE_LINES: u32 = 1 << 24;
pub const PIPELINING: u32 = 1 << 24;

/// Captured bytes looked at, at most (a long EHLO reply is some 200 B).
const SCAN: usize = 1024;

impl AppLine {
    pub fn kind(self) -> u8 {
        self.0 as u8
    }
    pub fn value(self) -> u16 {
        (self.0 >> 8) as u16
    }
    pub fn flag(self) -> bool {
        self.0 & (1 << 24) != 0
    }
    fn new(kind: u8, value: u16, flag: bool) -> AppLine {
        AppLine(u32::from(kind) | u32::from(value) << 8 | u32::from(flag) << 24)
    }

    /// The token of a payload whose captured bytes are `p` (0: none of these lines).
    pub fn of(p: &[u8]) -> AppLine {
        match p.first() {
            Some(b'1'..=b'5') => reply(p),
            Some(b'C') if p.starts_with(b"CONNECT ") => http_connect(p),
            Some(b'H') if p.starts_with(b"HTTP/1.") => http_status(p),
            Some(b'A'..=b'Z' | b'a'..=b'z') => command(p),
            _ => AppLine(0),
        }
    }
}

fn reply(p: &[u8]) -> AppLine {
    let Some(&[a, b, c, sep]) = p.get(..4) else { return AppLine(0) };
    if !(b.is_ascii_digit() && c.is_ascii_digit() && (sep == b' ' || sep == b'-')) {
        return AppLine(0);
    }
    let code = u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0');
    let line = first_line(p);
    match code {
        227 => passive_port(line, b'(', b')', pasv).map_or(AppLine(0), |port| AppLine::new(KIND_PASSIVE_REPLY, port, false)),
        229 => passive_port(line, b'(', b')', epsv).map_or(AppLine(0), |port| AppLine::new(KIND_PASSIVE_REPLY, port, false)),
        250 if sep == b'-' => AppLine::new(KIND_REPLY, code, has_line(p, b"PIPELINING")),
        // A preliminary reply with "226" in the same segment (a transfer done before
        // the server wrote the first line out).
        100..=199 => AppLine::new(KIND_REPLY, code, rest(p).starts_with(b"226 ")),
        _ => AppLine::new(KIND_REPLY, code, false),
    }
}

/// `CONNECT host:port HTTP/1.x` (RFC 9110 §9.3.6: the request target is the authority
/// form, host and port, RFC 9112 §3.2.3; the method is case-sensitive, §9.1): the port.
fn http_connect(p: &[u8]) -> AppLine {
    if !p[..p.len().min(SCAN)].contains(&b'\n') {
        return AppLine(0); // no line end: not a whole request line
    }
    let line = first_line(p);
    let mut parts = line.split(|&b| b == b' ');
    let (Some(_), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else { return AppLine(0) };
    if !(version == b"HTTP/1.1" || version == b"HTTP/1.0") {
        return AppLine(0);
    }
    // The port after the last ':' ("[2001:db8::1]:443" too); a host before it.
    let Some(colon) = target.iter().rposition(|&b| b == b':').filter(|&c| c > 0) else { return AppLine(0) };
    let port = std::str::from_utf8(&target[colon + 1..]).ok().and_then(|x| x.parse::<u16>().ok()).filter(|&p| p != 0);
    port.map_or(AppLine(0), |port| AppLine::new(KIND_HTTP_CONNECT, port, false))
}

/// `HTTP/1.x NNN` then a space or the line's end (RFC 9112 §4 status-line): the code.
fn http_status(p: &[u8]) -> AppLine {
    let Some(&[b'H', b'T', b'T', b'P', b'/', b'1', b'.', minor, b' ', a, b, c]) = p.get(..12) else { return AppLine(0) };
    let after = p.get(12).copied();
    if !(minor == b'0' || minor == b'1') || !(b'1'..=b'5').contains(&a) || !b.is_ascii_digit() || !c.is_ascii_digit() || !matches!(after, Some(b' ' | b'\r')) {
        return AppLine(0);
    }
    AppLine::new(KIND_HTTP_STATUS, u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'), false)
}

/// The payload's first line, without its CRLF (bounded by [`SCAN`]).
fn first_line(p: &[u8]) -> &[u8] {
    let p = &p[..p.len().min(SCAN)];
    let l = p.iter().position(|&b| b == b'\n').map_or(p, |i| &p[..i]);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// The captured bytes after the first line's end (bounded by [`SCAN`]); empty without one.
fn rest(p: &[u8]) -> &[u8] {
    let p = &p[..p.len().min(SCAN)];
    p.iter().position(|&b| b == b'\n').map_or(&[][..], |i| &p[i + 1..])
}

/// A line of a multi-line 250 reply (RFC 5321 §4.2.1: "250-NAME" / "250 NAME") is `name`.
fn has_line(p: &[u8], name: &[u8]) -> bool {
    p[..p.len().min(SCAN)].split(|&b| b == b'\n').any(|l| {
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        l.len() >= 4 + name.len() && l.starts_with(b"250") && l[4..4 + name.len()].eq_ignore_ascii_case(name) && l[4 + name.len()..].iter().all(|&b| b == b' ' || b.is_ascii_alphanumeric())
    })
}

/// The text between `open` and `close` in `line`, read by `parse`.
fn passive_port(line: &[u8], open: u8, close: u8, parse: fn(&[u8]) -> Option<u16>) -> Option<u16> {
    let a = line.iter().position(|&b| b == open)?;
    let b = a + line[a..].iter().position(|&b| b == close)?;
    parse(&line[a + 1..b])
}

/// "h1,h2,h3,h4,p1,p2" (RFC 959 §4.1.2 PORT, §4.2 227): the port p1·256 + p2.
fn pasv(s: &[u8]) -> Option<u16> {
    let n: Vec<u16> = s.split(|&b| b == b',').map(|x| std::str::from_utf8(x).ok()?.trim().parse::<u8>().ok().map(u16::from)).collect::<Option<_>>()?;
    (n.len() == 6).then(|| n[4] << 8 | n[5]).filter(|&p| p != 0)
}

/// "|||port|" (RFC 2428 §3, the 229 reply) or "|1|addr|port|" (§2, EPRT): the port.
fn epsv(s: &[u8]) -> Option<u16> {
    let d = *s.first()?;
    let f: Vec<&[u8]> = s.split(|&b| b == d).collect();
    (f.len() == 5).then(|| std::str::from_utf8(f[3]).ok()?.parse::<u16>().ok()).flatten().filter(|&p| p != 0)
}

const FTP_COMMANDS: [&[u8]; 22] = [
    b"USER", b"PASS", b"ACCT", b"CWD", b"CDUP", b"PWD", b"TYPE", b"MODE", b"STRU", b"PASV", b"EPSV", b"SYST", b"FEAT", b"SIZE", b"MDTM", b"REST", b"DELE", b"MKD", b"RMD", b"RNFR", b"RNTO", b"OPTS",
];
const FTP_DATA_COMMANDS: [&[u8]; 7] = [b"RETR", b"STOR", b"APPE", b"STOU", b"LIST", b"NLST", b"MLSD"];

fn command(p: &[u8]) -> AppLine {
    // A word of 3 or 4 letters, then a space or the line's end: most payloads stop here.
    let word = p.iter().take(5).position(|&b| matches!(b, b' ' | b'\r' | b'\n'));
    if !word.is_some_and(|w| (3..=4).contains(&w) && p[..w].iter().all(u8::is_ascii_alphabetic)) {
        return AppLine(0);
    }
    if !p[..p.len().min(SCAN)].contains(&b'\n') {
        return AppLine(0); // no line end: not a whole command line
    }
    let line = first_line(p);
    let word_len = line.iter().position(|&b| b == b' ').unwrap_or(line.len());
    if !(3..=4).contains(&word_len) {
        return AppLine(0);
    }
    let word = &line[..word_len];
    let is = |w: &[u8]| word.eq_ignore_ascii_case(w);
    // Another command line after the first (RFC 2920 §3: a group of commands).
    let more = rest(p).get(..4).is_some_and(|r| r.iter().all(u8::is_ascii_alphabetic));
    if is(b"MAIL") && line.len() > 10 && line[5..10].eq_ignore_ascii_case(b"FROM:") {
        return AppLine::new(KIND_SMTP_MAIL, 0, more);
    }
    if is(b"RCPT") && line.len() > 8 && line[5..8].eq_ignore_ascii_case(b"TO:") {
        return AppLine::new(KIND_SMTP_RCPT, 0, more);
    }
    if is(b"DATA") && word_len == line.len() {
        return AppLine::new(KIND_SMTP_DATA, 0, more);
    }
    if is(b"EHLO") || is(b"HELO") {
        return AppLine::new(KIND_SMTP_HELLO, 0, more);
    }
    if is(b"PORT") {
        return line.get(5..).and_then(pasv).map_or(AppLine(0), |port| AppLine::new(KIND_FTP_PORT, port, false));
    }
    if is(b"EPRT") {
        return line.get(5..).and_then(epsv).map_or(AppLine(0), |port| AppLine::new(KIND_FTP_PORT, port, false));
    }
    if FTP_DATA_COMMANDS.iter().any(|&w| is(w)) {
        return AppLine::new(KIND_FTP_DATA_COMMAND, 0, false);
    }
    if FTP_COMMANDS.iter().any(|&w| is(w)) {
        return AppLine::new(KIND_FTP_COMMAND, 0, false);
    }
    AppLine(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ftp_and_smtp_lines() {
        let k = |p: &[u8]| (AppLine::of(p).kind(), AppLine::of(p).value(), AppLine::of(p).flag());
        assert_eq!(k(b"150 Opening BINARY mode data connection\r\n"), (KIND_REPLY, 150, false));
        assert_eq!(k(b"226 Transfer complete\r\n"), (KIND_REPLY, 226, false));
        assert_eq!(k(b"150 Opening data connection\r\n226 Transfer complete\r\n"), (KIND_REPLY, 150, true));
        // 243·256 + 251 (zeek ftp/cwd-navigation.pcap frame 38).
        assert_eq!(k(b"227 Entering Passive Mode (205,167,25,101,243,251).\r\n"), (KIND_PASSIVE_REPLY, 62459, false));
        assert_eq!(k(b"229 Entering Extended Passive Mode (|||50123|)\r\n"), (KIND_PASSIVE_REPLY, 50123, false));
        assert_eq!(k(b"PORT 192,168,0,2,7,138\r\n"), (KIND_FTP_PORT, 1930, false));
        assert_eq!(k(b"EPRT |2|::1|5282|\r\n"), (KIND_FTP_PORT, 5282, false));
        assert_eq!(k(b"RETR a.gz\r\n").0, KIND_FTP_DATA_COMMAND);
        assert_eq!(k(b"CWD ../\r\n").0, KIND_FTP_COMMAND);
        assert_eq!(k(b"250-xc90 Hello\r\n250-SIZE 52428800\r\n250-PIPELINING\r\n250 HELP\r\n"), (KIND_REPLY, 250, true));
        assert_eq!(k(b"250-xc90 Hello\r\n250-SIZE 52428800\r\n250 HELP\r\n"), (KIND_REPLY, 250, false));
        assert_eq!(k(b"MAIL FROM:<a@b>\r\n"), (KIND_SMTP_MAIL, 0, false));
        assert_eq!(k(b"MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n"), (KIND_SMTP_MAIL, 0, true));
        assert_eq!(k(b"RCPT TO:<c@d>\r\n"), (KIND_SMTP_RCPT, 0, false));
        assert_eq!(k(b"DATA\r\n"), (KIND_SMTP_DATA, 0, false));
        // An explicit proxy's tunnel (PCAPdroid tests/pcap/http_proxy.pcap frames 4 and 6).
        assert_eq!(k(b"CONNECT 15.35.226.136:443 HTTP/1.1\r\nHost: 15.35.226.136:443\r\n\r\n"), (KIND_HTTP_CONNECT, 443, false));
        assert_eq!(k(b"CONNECT [2001:db8::1]:8443 HTTP/1.0\r\n\r\n"), (KIND_HTTP_CONNECT, 8443, false));
        assert_eq!(k(b"HTTP/1.1 200 Connection established\r\n\r\n"), (KIND_HTTP_STATUS, 200, false));
        assert_eq!(k(b"HTTP/1.0 407 Proxy Authentication Required\r\n"), (KIND_HTTP_STATUS, 407, false));
        assert_eq!(AppLine::of(b"CONNECT example.com HTTP/1.1\r\n"), AppLine(0), "no port");
        assert_eq!(AppLine::of(b"CONNECT a:443 HTTP/1.1"), AppLine(0), "no line end");
        assert_eq!(AppLine::of(b"CONNECT a:443\r\n"), AppLine(0), "no version");
        assert_eq!(AppLine::of(b"HTTP/2 200\r\n"), AppLine(0));
        assert_eq!(AppLine::of(b"HTTP/1.1 2000\r\n"), AppLine(0));
        // Not lines of these protocols.
        assert_eq!(AppLine::of(b"GET / HTTP/1.1\r\n"), AppLine(0));
        assert_eq!(AppLine::of(b"2024-01-01 log"), AppLine(0));
        assert_eq!(AppLine::of(b"DATA"), AppLine(0), "no line end");
        assert_eq!(AppLine::of(b"\x16\x03\x01"), AppLine(0));
    }
}
