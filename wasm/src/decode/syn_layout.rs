//! The order of a SYN's options, where it is one a known TCP stack writes (docs/ANALYSIS.md
//! "Whose stack sent the SYN").
//!
//! RFC 9293 §3.2 leaves the order of options and the NOP padding between them to the
//! sender, and each stack writes its SYN's options in its own fixed order — the
//! passive fingerprint p0f reads (p0f v3, `p0f.fp`, the `olayout` field). Only the
//! layouts of the three stacks whose receive-buffer knob the diagnosis can name are
//! recognised (on a SYN, and on a SYN/ACK, whose options answer the SYN's:
//! track/syn_stack.rs `of_syn_ack`), byte for byte with every option's length as specified; anything else
//! (another stack, an extra option such as MPTCP or TFO, a middlebox that rewrote the
//! options, a snaplen that cut them) is `Other`. One byte, so a held packet stays at
//! 208 bytes (capture/timeline.rs, Memory).

/// A SYN's option layout (`TcpOptions::syn_layout`), read only on SYN segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SynLayout {
    #[default]
    Other,
    /// MSS, SACK-permitted, timestamps, NOP, window scale: Linux's `tcp_options_write`
    /// with its defaults (p0f "Linux 3.11 and newer": `mss,sok,ts,nop,ws`).
    LinuxTs,
    /// MSS, NOP, NOP, SACK-permitted, NOP, window scale: the same code with timestamps
    /// off (`net.ipv4.tcp_timestamps=0`, p0f `mss,nop,nop,sok,nop,ws`).
    LinuxNoTs,
    /// MSS, NOP, window scale, NOP, NOP, SACK-permitted: Windows 7 to 11 with their
    /// defaults, no timestamps (p0f "Windows 7 or 8": `mss,nop,ws,nop,nop,sok`).
    Windows,
    /// MSS, NOP, window scale, NOP, NOP, timestamps, SACK-permitted, End of Option List:
    /// the XNU stack of macOS and iOS (p0f "Mac OS X": `mss,nop,ws,nop,nop,ts,sok,eol+1`).
    Apple,
    /// MSS, NOP, window scale, SACK-permitted, timestamps: Windows' SYN/ACK answering a
    /// SYN that offered timestamps (p0f `s:win:server2019`; jovair1994 `rdp.pcap` frame
    /// 2, an RDP server at TTL 128), and FreeBSD's SYN (p0f `s:freebsd`). Named only on a
    /// SYN/ACK at Windows' initial TTL (track/syn_stack.rs `of_syn_ack`).
    WindowsTs,
}

const EOL: u8 = 0;
const NOP: u8 = 1;
const MSS: u8 = 2;
const WS: u8 = 3;
const SOK: u8 = 4;
const TS: u8 = 8;

const LAYOUTS: [(&[u8], SynLayout); 5] = [
    (&[MSS, SOK, TS, NOP, WS], SynLayout::LinuxTs),
    (&[MSS, NOP, NOP, SOK, NOP, WS], SynLayout::LinuxNoTs),
    (&[MSS, NOP, WS, NOP, NOP, SOK], SynLayout::Windows),
    (&[MSS, NOP, WS, NOP, NOP, TS, SOK, EOL], SynLayout::Apple),
    (&[MSS, NOP, WS, SOK, TS], SynLayout::WindowsTs),
];

/// The layout of the option bytes `b` (the TCP header past its 20 fixed bytes): the
/// option kinds in order, NOPs and a closing EOL included, each with the length RFC
/// 9293 §3.2 (MSS 4), RFC 7323 (window scale 3, timestamps 10) and RFC 2018
/// (SACK-permitted 2) give it. Bytes after an EOL are padding and not read.
pub fn of(b: &[u8]) -> SynLayout {
    let mut kinds = [0u8; 8];
    let (mut n, mut i) = (0, 0);
    while i < b.len() {
        if n == kinds.len() {
            return SynLayout::Other;
        }
        let kind = b[i];
        kinds[n] = kind;
        n += 1;
        let len = match kind {
            EOL => break,
            NOP => 1,
            MSS => 4,
            WS => 3,
            SOK => 2,
            TS => 10,
            _ => return SynLayout::Other,
        };
        if len > 1 && b.get(i + 1) != Some(&(len as u8)) {
            return SynLayout::Other;
        }
        i += len;
    }
    if i > b.len() {
        return SynLayout::Other;
    }
    LAYOUTS.iter().find(|(k, _)| **k == kinds[..n]).map_or(SynLayout::Other, |&(_, l)| l)
}

#[cfg(test)]
mod tests {
    use super::{of, SynLayout};

    #[test]
    fn the_three_stacks_layouts_and_nothing_else() {
        // Linux 6.x's SYN (MSS 1460, SACK-permitted, TS, NOP, wscale 7): 20 bytes.
        let linux = [2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7];
        assert_eq!(of(&linux), SynLayout::LinuxTs);
        // Timestamps off: NOP, NOP before SACK-permitted (12 bytes).
        assert_eq!(of(&[2, 4, 5, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7]), SynLayout::LinuxNoTs);
        // Windows 10: MSS, NOP, wscale 8, NOP, NOP, SACK-permitted (12 bytes).
        assert_eq!(of(&[2, 4, 5, 0xb4, 1, 3, 3, 8, 1, 1, 4, 2]), SynLayout::Windows);
        // macOS: … TS, SACK-permitted, EOL and one padding byte (24 bytes).
        let apple = [2, 4, 5, 0xb4, 1, 3, 3, 6, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 4, 2, 0, 0];
        assert_eq!(of(&apple), SynLayout::Apple);
        // The RDP server's SYN/ACK of jovair1994 rdp.pcap (frame 2): MSS, NOP, WS 8,
        // SACK-permitted, TS — Windows answering timestamps, or FreeBSD's SYN.
        assert_eq!(of(&[2, 4, 5, 0xb4, 1, 3, 3, 8, 4, 2, 8, 10, 0, 0x1e, 0x99, 0x21, 4, 0x70, 0xbb, 0xef]), SynLayout::WindowsTs);
        // The same kinds with SACK-permitted before WS are none of them; nor Linux's with an MPTCP option (kind 30) after it, nor one cut short
        // by the snaplen, nor a bad length, nor no options at all.
        assert_eq!(of(&[2, 4, 5, 0xb4, 4, 2, 1, 3, 3, 6, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0]), SynLayout::Other);
        let mut mptcp = linux.to_vec();
        mptcp.extend([30, 4, 0, 0x81]);
        assert_eq!(of(&mptcp), SynLayout::Other);
        assert_eq!(of(&linux[..18]), SynLayout::Other);
        assert_eq!(of(&[2, 6, 5, 0xb4, 0, 0, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7]), SynLayout::Other);
        assert_eq!(of(&[]), SynLayout::Other);
    }
}
