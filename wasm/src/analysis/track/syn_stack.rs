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
//! - only a SYN (not a SYN/ACK, whose options answer the SYN's: RFC 7323 §2.2, RFC
//!   2018 §2) and only one captured with its options and its IPv4 TTL (an IPv6 hop
//!   limit is not read, decode/ip.rs);
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

#[cfg(test)]
mod tests {
    use super::{initial_ttl, of, SynStack};
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
    }
}
