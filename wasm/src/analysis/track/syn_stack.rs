//! Whose TCP stack sent a connection's SYN, where the SYN itself says so (docs/ANALYSIS.md
//! "Whose stack sent the SYN"): what lets the receive-window advice name the one knob
//! that stack has (verdict/diagnosis/buffer_knob.rs) instead of another system's.
//!
//! The rule is p0f's (v3, `p0f.fp`), kept to the two parts of its signature that hold
//! for a stack's defaults whatever the application or the path: the order of the SYN's
//! options (decode/syn_layout.rs), and the initial TTL the SYN left with — 64 for
//! Linux and Apple's XNU, 128 for Windows (vantage.rs `INITIAL_TTLS`) — read back from
//! the TTL captured, which each router on the way lowered by one (RFC 791 §3.2). Both
//! must agree; either alone names nothing (an option order another stack shares, a
//! TTL an administrator changed). Its limits, each leaving the stack unnamed:
//! - only a SYN or SYN/ACK captured with its options and its IPv4 TTL (an IPv6 hop
//!   limit is not read, decode/ip.rs); a SYN/ACK only where its layout is unambiguous
//!   ([`of_syn_ack`]);
//! - a middlebox that rewrites the options (a proxy, a firewall's option scrub) or a
//!   stack tuned away from its defaults (Windows with timestamps on) leaves a layout
//!   that matches none;
//! - more than [`MAX_HOPS`] routers from the initial TTL is no initial TTL at all;
//! - a stack that copies another's layout and TTL exactly would be named as that one
//!   (Android is Linux, and reads so).

use crate::analysis::timing::vantage::INITIAL_TTLS;
use crate::decode::syn_layout::SynLayout;

/// The most routers a TTL is read back through to its initial value: traceroute's
/// default maximum (30 hops), beyond any path on today's Internet.
pub const MAX_HOPS: u8 = 30;

/// The stack a SYN's layout and initial TTL identify (one byte per handshake offer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SynStack {
    #[default]
    Unknown,
    Linux,
    Windows,
    /// Apple's XNU: macOS and iOS.
    Apple,
}

impl SynStack {
    /// `handshake.syn.stack`: "linux" | "windows" | "apple"; None when unknown.
    pub fn name(self) -> Option<&'static str> {
        match self {
            SynStack::Unknown => None,
            SynStack::Linux => Some("linux"),
            SynStack::Windows => Some("windows"),
            SynStack::Apple => Some("apple"),
        }
    }
}

/// The initial TTL a captured TTL left from: the smallest of the stacks' initial values
/// not below it, at most [`MAX_HOPS`] routers away.
pub fn initial_ttl(ttl: u8) -> Option<u8> {
    INITIAL_TTLS.iter().copied().find(|&i| i >= ttl).filter(|&i| i - ttl <= MAX_HOPS)
}

/// The stack of a SYN with option layout `layout` captured with IPv4 TTL `ttl`.
pub fn of(layout: SynLayout, ttl: Option<u8>) -> SynStack {
    match (layout, ttl.and_then(initial_ttl)) {
        (SynLayout::LinuxTs | SynLayout::LinuxNoTs, Some(64)) => SynStack::Linux,
        (SynLayout::Windows, Some(128)) => SynStack::Windows,
        (SynLayout::Apple, Some(64)) => SynStack::Apple,
        _ => SynStack::Unknown,
    }
}

/// What a SYN offered that a SYN/ACK may answer: SACK-permitted, timestamps, window
/// scale (RFC 2018 §2, RFC 7323 §2.2 and §3.2: each only where the SYN carried it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offered {
    pub sack: bool,
    pub timestamps: bool,
    pub scale: bool,
}

/// The stack of a SYN/ACK with option layout `layout` at IPv4 TTL `ttl`, answering a SYN
/// that offered `offered` (None: that SYN is not in the capture). A SYN/ACK carries only
/// options the SYN offered (RFC 2018 §2, RFC 7323 §2.2, §3.2), so its layout is its stack's
/// writer applied to what the SYN offered — the same as the stack's SYN where the SYN
/// offered everything, shorter where it did not — and is read only where no other stack
/// writes those bytes at that initial TTL:
/// - Linux's (64): MSS, SACK-permitted, timestamps, NOP, window scale (`tcp_options_write`,
///   all three answered); MSS, NOP, NOP, SACK-permitted, NOP, window scale only where the
///   SYN offered timestamps (Linux with timestamps off): answering a SYN without them,
///   OpenBSD writes the same bytes (its MSS, NOP, NOP, SACK-permitted, NOP, window scale,
///   NOP, NOP, timestamps, less what was not offered);
/// - Windows' (128): MSS, NOP, window scale, SACK-permitted, timestamps (answering
///   timestamps), or its SYN's layout;
/// - Apple's (64): its SYN's layout.
///
/// A SYN/ACK carrying an option the SYN did not offer was rewritten on the way (or its
/// stack breaks the RFCs): unknown.
pub fn of_syn_ack(layout: SynLayout, ttl: Option<u8>, offered: Option<Offered>, carries: Offered) -> SynStack {
    if let Some(o) = offered {
        if (carries.sack && !o.sack) || (carries.timestamps && !o.timestamps) || (carries.scale && !o.scale) {
            return SynStack::Unknown;
        }
    }
    match (layout, ttl.and_then(initial_ttl)) {
        (SynLayout::LinuxTs, Some(64)) => SynStack::Linux,
        (SynLayout::LinuxNoTs, Some(64)) if offered.is_some_and(|o| o.timestamps) => SynStack::Linux,
        (SynLayout::Windows | SynLayout::WindowsTs, Some(128)) => SynStack::Windows,
        (SynLayout::Apple, Some(64)) => SynStack::Apple,
        _ => SynStack::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::{initial_ttl, of, of_syn_ack, Offered, SynStack};
    use crate::decode::syn_layout::SynLayout;

    #[test]
    fn layout_and_initial_ttl_must_agree() {
        // A Windows SYN 13 routers away (TTL 115, as the ACKs of the NDT client in
        // jianfenw/tcp-trace-compression arrived) is Windows; a Linux one at 63
        // (one router) is Linux; macOS's layout at 64 is Apple's.
        assert_eq!(of(SynLayout::Windows, Some(115)), SynStack::Windows);
        assert_eq!(of(SynLayout::LinuxTs, Some(63)), SynStack::Linux);
        assert_eq!(of(SynLayout::LinuxNoTs, Some(64)), SynStack::Linux);
        assert_eq!(of(SynLayout::Apple, Some(52)), SynStack::Apple);
        // Disagreeing: Linux's layout from 128, Windows' from 64 (a TTL changed by hand,
        // or a stack copying a layout), no TTL (IPv6), no known layout: unknown.
        assert_eq!(of(SynLayout::LinuxTs, Some(128)), SynStack::Unknown);
        assert_eq!(of(SynLayout::Windows, Some(64)), SynStack::Unknown);
        assert_eq!(of(SynLayout::LinuxTs, None), SynStack::Unknown);
        assert_eq!(of(SynLayout::Other, Some(64)), SynStack::Unknown);
        // The initial TTL: 34 is 64 less 30 routers (traceroute's maximum), 33 would
        // be 31; 97 is 128 less 31 (too far), 98 less 30.
        assert_eq!((initial_ttl(34), initial_ttl(33), initial_ttl(97), initial_ttl(98)), (Some(64), None, None, Some(128)));
        assert_eq!((initial_ttl(255), initial_ttl(129), initial_ttl(225)), (Some(255), None, Some(255)));
        // Windows' SYN/ACK answering timestamps is no SYN layout of Windows (FreeBSD's).
        assert_eq!(of(SynLayout::WindowsTs, Some(128)), SynStack::Unknown);
    }

    #[test]
    fn a_syn_ack_names_its_stack_where_its_layout_is_unambiguous() {
        let all = Offered { sack: true, timestamps: true, scale: true };
        let no_ts = Offered { timestamps: false, ..all };
        // rwnd-limited.pcap frame 2: the Linux receiver's SYN/ACK (TTL 64) to a full offer.
        assert_eq!(of_syn_ack(SynLayout::LinuxTs, Some(64), Some(all), all), SynStack::Linux);
        // jovair1994 rdp.pcap frame 2: a Windows RDP server answering timestamps at 128.
        assert_eq!(of_syn_ack(SynLayout::WindowsTs, Some(128), Some(all), all), SynStack::Windows);
        // The same bytes at 64 are FreeBSD's: unknown.
        assert_eq!(of_syn_ack(SynLayout::WindowsTs, Some(64), Some(all), all), SynStack::Unknown);
        assert_eq!(of_syn_ack(SynLayout::Apple, Some(52), None, all), SynStack::Apple);
        // Linux without timestamps: named where the SYN offered them (Linux turned them
        // off), not where it did not (OpenBSD answers a Windows SYN with the same bytes),
        // nor where the SYN is not captured.
        assert_eq!(of_syn_ack(SynLayout::LinuxNoTs, Some(64), Some(all), no_ts), SynStack::Linux);
        assert_eq!(of_syn_ack(SynLayout::LinuxNoTs, Some(64), Some(no_ts), no_ts), SynStack::Unknown);
        assert_eq!(of_syn_ack(SynLayout::LinuxNoTs, Some(64), None, no_ts), SynStack::Unknown);
        // Timestamps the SYN never offered: rewritten on the way.
        assert_eq!(of_syn_ack(SynLayout::LinuxTs, Some(64), Some(no_ts), all), SynStack::Unknown);
        assert_eq!(of_syn_ack(SynLayout::Other, Some(64), Some(all), all), SynStack::Unknown);
    }
}
