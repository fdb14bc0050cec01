//! TCP header and options (RFC 9293 §3.1; options: MSS RFC 9293 §3.2, window scale and
//! timestamps RFC 7323 §2–3, SACK-permitted and SACK blocks RFC 2018 §2–3; MPTCP's
//! kind 30 is read by mptcp.rs).
//!
//! `TcpHeader::parse` validates once (fixed 20 bytes present, data offset ≥ 5);
//! getters then read fields without further checks. Options are parsed from whatever
//! part of the option area was captured: a snaplen that cuts the options loses only
//! the options it cut (RFC 9293 says a receiver must be robust to odd options too).

use super::{TcpOptions, WarningKind};

/// Length of the fixed part of the TCP header (RFC 9293 §3.1).
pub const TCP_MIN_HEADER: usize = 20;

/// A validated view of a TCP header. The slice holds at least the 20 fixed bytes;
/// it may hold fewer option bytes than `header_len` says if the capture was cut.
#[derive(Clone, Copy, Debug)]
pub struct TcpHeader<'a>(&'a [u8]);

impl<'a> TcpHeader<'a> {
    /// Validate the fixed header. A cut before byte 20 is `TruncatedHeaders`; a data
    /// offset below 5 words cannot be true (RFC 9293 §3.1) and is `MalformedPacket`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, WarningKind> {
        if bytes.len() < TCP_MIN_HEADER {
            return Err(WarningKind::TruncatedHeaders);
        }
        let h = TcpHeader(bytes);
        if h.header_len() < TCP_MIN_HEADER {
            return Err(WarningKind::MalformedPacket);
        }
        Ok(h)
    }

    fn u16_at(&self, i: usize) -> u16 {
        u16::from_be_bytes([self.0[i], self.0[i + 1]])
    }
    fn u32_at(&self, i: usize) -> u32 {
        u32::from_be_bytes([self.0[i], self.0[i + 1], self.0[i + 2], self.0[i + 3]])
    }

    pub fn src_port(&self) -> u16 {
        self.u16_at(0)
    }
    pub fn dst_port(&self) -> u16 {
        self.u16_at(2)
    }
    pub fn seq(&self) -> u32 {
        self.u32_at(4)
    }
    pub fn ack(&self) -> u32 {
        self.u32_at(8)
    }
    /// Header length in bytes: the data offset (high nibble of byte 12) × 4.
    pub fn header_len(&self) -> usize {
        usize::from(self.0[12] >> 4) * 4
    }
    /// The flags byte (CWR ECE URG ACK PSH RST SYN FIN); the AE/NS bit in byte 12
    /// is not included (see `super::tcp_flags`).
    /// AE (Accurate ECN, RFC 9768 §3.1; formerly NS): the low bit of byte 12.
    pub fn ae(&self) -> bool {
        self.0[12] & 1 != 0
    }
    pub fn flags(&self) -> u8 {
        self.0[13]
    }
    pub fn window(&self) -> u16 {
        self.u16_at(14)
    }
    /// The captured part of the option area (may be shorter than announced).
    pub fn option_bytes(&self) -> &'a [u8] {
        let end = self.header_len().min(self.0.len());
        self.0.get(TCP_MIN_HEADER..end).unwrap_or(&[])
    }
    pub fn options(&self) -> TcpOptions {
        parse_options(self.option_bytes())
    }
}

/// Option kinds (IANA "TCP Option Kind Numbers").
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMP: u8 = 8;
/// TCP Fast Open cookie (RFC 7413 §4.1.1), and the experimental kind 254 with
/// ExID 0xF989 that stacks used before kind 34 was assigned.
const OPT_TFO: u8 = 34;
const OPT_EXPERIMENTAL: u8 = 254;

/// The TLV option list (RFC 9293 §3.2) as `Ok((kind, body))` items, NOPs skipped.
/// Ends at End-of-Option-List; yields `Err(kind)` once and ends at an option whose
/// length byte is missing or < 2 (the rest cannot be delimited) or that runs past the
/// captured bytes (a snaplen of 96 keeps only part of a SACK option on IPv6: 14 + 40 +
/// 32 + 12 bytes of timestamps leave 10 of it).
pub struct OptionIter<'a>(&'a [u8]);

impl<'a> OptionIter<'a> {
    pub fn new(options: &'a [u8]) -> Self {
        OptionIter(options)
    }
}

impl<'a> Iterator for OptionIter<'a> {
    type Item = Result<(u8, &'a [u8]), u8>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let b = self.0;
            let &kind = b.first()?;
            match kind {
                OPT_EOL => {
                    self.0 = &[];
                    return None;
                }
                OPT_NOP => {
                    self.0 = &b[1..];
                    continue;
                }
                _ => {}
            }
            self.0 = &[];
            let len = match b.get(1) {
                Some(&l) if l >= 2 => usize::from(l),
                _ => return Some(Err(kind)),
            };
            let Some(body) = b.get(2..len) else { return Some(Err(kind)) };
            self.0 = &b[len..];
            return Some(Ok((kind, body)));
        }
    }
}

/// Read the options the analysis uses from the TLV list (`OptionIter`). Options with
/// an unexpected length are skipped rather than misread.
pub fn parse_options(b: &[u8]) -> TcpOptions {
    let mut o = TcpOptions::default();
    for item in OptionIter::new(b) {
        let (kind, body) = match item {
            Ok(option) => option,
            Err(kind) => {
                o.sack_unreadable |= kind == OPT_SACK;
                break;
            }
        };
        match (kind, body.len()) {
            (OPT_MSS, 2) => o.mss = Some(u16::from_be_bytes([body[0], body[1]])),
            (OPT_WSCALE, 1) => o.window_scale = Some(body[0]),
            (OPT_SACK_PERMITTED, 0) => o.sack_permitted = true,
            (OPT_SACK, n) if n % 8 == 0 => {
                // RFC 2018 §3: up to 4 blocks fit in 40 option bytes.
                for pair in body.chunks_exact(8) {
                    let i = usize::from(o.sack_count);
                    if i >= o.sack_blocks.len() {
                        break;
                    }
                    let left = u32::from_be_bytes([pair[0], pair[1], pair[2], pair[3]]);
                    let right = u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]);
                    o.sack_blocks[i] = (left, right);
                    o.sack_count += 1;
                }
            }
            (OPT_TIMESTAMP, 8) => {
                let val = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                let ecr = u32::from_be_bytes([body[4], body[5], body[6], body[7]]);
                o.timestamp = Some((val, ecr));
            }
            (OPT_TFO, _) => o.tfo = true,
            (OPT_EXPERIMENTAL, n) if n >= 2 && body[..2] == [0xf9, 0x89] => o.tfo = true,
            // Read in full by mptcp.rs, only for segments that carry one.
            (super::mptcp::OPT_MPTCP, _) => o.mptcp = true,
            _ => {} // unknown or odd length: skip
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    // A SYN from port 40000 to 80 with MSS 1460, SACK-permitted, timestamps, NOP, wscale 7.
    const SYN: [u8; 40] = [
        0x9c, 0x40, 0x00, 0x50, // ports 40000 → 80
        0x00, 0x00, 0x03, 0xe8, // seq 1000
        0x00, 0x00, 0x00, 0x00, // ack 0
        0xa0, 0x02, 0xfa, 0xf0, // data offset 10 words, SYN, window 64240
        0x00, 0x00, 0x00, 0x00, // checksum, urgent
        0x02, 0x04, 0x05, 0xb4, // MSS 1460
        0x04, 0x02, // SACK permitted
        0x08, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // TS 1, 0
        0x01, // NOP
        0x03, 0x03, 0x07, // wscale 7
    ];

    #[test]
    fn syn_header_and_options() {
        let h = TcpHeader::parse(&SYN).unwrap();
        assert_eq!((h.src_port(), h.dst_port(), h.seq(), h.ack()), (40000, 80, 1000, 0));
        assert_eq!((h.header_len(), h.flags(), h.window()), (40, 0x02, 64240));
        let o = h.options();
        assert_eq!(o.mss, Some(1460));
        assert_eq!(o.window_scale, Some(7));
        assert!(o.sack_permitted);
        assert_eq!(o.timestamp, Some((1, 0)));
        assert_eq!(o.sack_count, 0);
    }

    #[test]
    fn options_cut_by_snaplen_keep_what_is_present() {
        // Cut inside the timestamp option: MSS and SACK-permitted survive.
        let h = TcpHeader::parse(&SYN[..30]).unwrap();
        let o = h.options();
        assert_eq!(o.mss, Some(1460));
        assert!(o.sack_permitted);
        assert_eq!(o.timestamp, None);
        assert_eq!(o.window_scale, None);
    }

    #[test]
    fn sack_blocks() {
        let opts = [1, 1, 5, 18, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40];
        let o = parse_options(&opts);
        assert_eq!(o.sack_count, 2);
        assert_eq!(&o.sack_blocks[..2], &[(10, 20), (30, 40)]);
        assert!(!o.sack_unreadable);
    }

    #[test]
    fn a_sack_option_cut_by_the_snaplen_is_present_but_unreadable() {
        // IPv6 at snaplen 96: 14 + 40 + 20 header bytes leave 22 option bytes: NOP NOP
        // TS (12), NOP NOP, then 10 of a 3-block SACK option (length 26).
        let mut opts = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 26];
        opts.extend([0, 0, 0, 10, 0, 0]);
        let o = parse_options(&opts);
        assert_eq!((o.sack_count, o.sack_unreadable, o.timestamp), (0, true, Some((1, 2))));
        // Cut right after the kind byte: the same.
        assert!(parse_options(&[1, 1, 5]).sack_unreadable);
        // Another option cut short is not a SACK.
        assert!(!parse_options(&[8, 10, 0, 0]).sack_unreadable);
    }

    #[test]
    fn tcp_fast_open_option_34_and_the_experimental_254() {
        // RFC 7413 §4.1.1: kind 34, length 2 = cookie request; 254 with ExID 0xF989
        // (RFC 6994) as before kind 34 was assigned; another 254 ExID is not TFO.
        assert!(parse_options(&[34, 2]).tfo);
        assert!(parse_options(&[1, 34, 10, 1, 2, 3, 4, 5, 6, 7, 8]).tfo);
        assert!(parse_options(&[254, 4, 0xf9, 0x89]).tfo);
        assert!(!parse_options(&[254, 4, 0x12, 0x34]).tfo);
        assert!(!parse_options(&SYN[20..]).tfo);
    }

    #[test]
    fn bad_option_lengths_do_not_panic() {
        for opts in [&[2u8][..], &[2, 0], &[2, 1, 5], &[2, 200, 1, 2], &[5, 3, 0], &[8, 10, 1]] {
            let o = parse_options(opts);
            assert_eq!(o.mss, None);
        }
        // Odd MSS length is skipped, then the next option is read.
        let o = parse_options(&[2, 3, 9, 3, 3, 4]);
        assert_eq!((o.mss, o.window_scale), (None, Some(4)));
    }

    #[test]
    fn rejects_short_and_bad_offset() {
        assert_eq!(TcpHeader::parse(&SYN[..19]).unwrap_err(), WarningKind::TruncatedHeaders);
        let mut bad = SYN;
        bad[12] = 0x40; // data offset 4 words < 5
        assert_eq!(TcpHeader::parse(&bad).unwrap_err(), WarningKind::MalformedPacket);
    }
}
