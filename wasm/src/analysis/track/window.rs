//! Window scaling (RFC 7323 §2) and the advertised receive window.
//!
//! * The shift a side announces in its SYN (or SYN/ACK) applies to the windows it
//!   sends afterwards, and only if BOTH sides sent the option (RFC 7323 §2.2:
//!   "both sides MUST send Window Scale options in their <SYN> segments to enable
//!   window scaling in either direction"). Shifts above 14 are treated as 14 (§2.3).
//! * The window field of a SYN segment is never scaled (§2.2).
//! * A SYN/ACK carries the option only if the SYN did (§2.2), so a SYN/ACK seen with
//!   the option makes its sender's shift known even if the SYN was not captured —
//!   Wireshark concludes the same in `verify_tcp_window_scaling`.
//! * Where the handshake was not captured the scale is unknown: windows are shown
//!   raw, and `lower_bound` infers the smallest shift that explains the bytes in
//!   flight that the peer kept outstanding against the raw window.
//!
//! Difference from Wireshark: when the SYN carried the option but the SYN/ACK was
//! not captured, Wireshark scales the SYN sender's windows anyway; tcpscope calls
//! that scale unknown (the peer may not have agreed).

use serde::Serialize;

/// Window-scale state of one side, as Wireshark's win_scale: -1 unknown, -2 no
/// scaling, >= 0 the announced shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub state: i8,
    /// This side's SYN/ACK carried the option (so its shift is known, see above).
    pub synack_with_option: bool,
}

pub const UNKNOWN: i8 = -1;
pub const NOT_USED: i8 = -2;

impl Default for Scale {
    fn default() -> Self {
        Scale { state: UNKNOWN, synack_with_option: false }
    }
}

/// What is known about the scale that applies to a side's windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effective {
    /// Windows are shifted by this amount (0 when scaling is not in use).
    Known(u8),
    Unknown,
}

/// Records a SYN's option for its sender (`fwd`) and settles the state as
/// Wireshark's `verify_tcp_window_scaling` does: a SYN or SYN/ACK without the
/// option disables scaling in both directions; a SYN/ACK with the option after a
/// SYN without it disables it too.
pub fn on_syn(fwd: &mut Scale, rev: &mut Scale, is_synack: bool, option: Option<u8>) {
    match option {
        None => {
            fwd.state = NOT_USED;
            rev.state = NOT_USED;
        }
        Some(shift) => {
            fwd.state = shift.min(14) as i8;
            if is_synack {
                fwd.synack_with_option = true;
                if rev.state == NOT_USED {
                    fwd.state = NOT_USED;
                }
            }
        }
    }
}

/// The scale that applies to the windows `side` sends, given its peer's state.
pub fn effective(side: &Scale, peer: &Scale) -> Effective {
    match side.state {
        NOT_USED => Effective::Known(0),
        s if s >= 0 && (peer.state >= 0 || side.synack_with_option) => Effective::Known(s as u8),
        // The peer's SYN/SYN-ACK had no option: scaling is off both ways.
        s if s >= 0 && peer.state == NOT_USED => Effective::Known(0),
        _ => Effective::Unknown,
    }
}

/// Advertised window in bytes: never scaled on SYN segments; raw when unknown.
pub fn scaled(raw: u16, is_syn: bool, eff: Effective) -> u64 {
    match eff {
        Effective::Known(s) if !is_syn => (raw as u64) << s,
        _ => raw as u64,
    }
}

/// Smallest shift s (0..=14) with raw << s >= in_flight: a lower bound on an
/// unknown scale, since a sender keeps at most one window outstanding (RFC 9293
/// §3.8.6). None when the raw window is 0 (a zero window says nothing about it).
pub fn lower_bound(raw: u16, in_flight: u64) -> Option<u8> {
    if raw == 0 {
        return None;
    }
    (0u8..=14).find(|&s| ((raw as u64) << s) >= in_flight).or(Some(14))
}

/// The columns as the sender saw its peer's windows: where a side's window scale is
/// unknown (no handshake), its raw windows multiplied by the inferred lower bound of
/// the scale (`DirectionSummary::inferred_scale`), so that stalls, limit
/// shares and the window-limited spans judge the window the headline quotes. A
/// sender whose bytes in flight sit at raw × 2^bound is held by that window; with a
/// larger scale the match would be a coincidence. Zero windows stay zero.
pub fn apply_inferred_scale(cols: &mut crate::analysis::rows::columns::PacketColumns, inferred: [Option<u8>; 2]) {
    for (d, bound) in inferred.into_iter().enumerate() {
        let Some(lb) = bound else { continue };
        let m = f64::from(1u32 << lb.min(14));
        for i in 0..cols.t.len() {
            if cols.dir[i] as usize == d && cols.flags[i] & 0x02 == 0 {
                cols.win[i] *= m;
            }
        }
    }
}

/// `{min, max}` of the window a side advertises (SYN and RST segments excluded).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negotiate(a: Option<u8>, b: Option<u8>) -> (Effective, Effective) {
        let (mut sa, mut sb) = (Scale::default(), Scale::default());
        on_syn(&mut sa, &mut sb, false, a);
        on_syn(&mut sb, &mut sa, true, b);
        (effective(&sa, &sb), effective(&sb, &sa))
    }

    #[test]
    fn both_offered_each_side_uses_its_own_shift() {
        assert_eq!(negotiate(Some(7), Some(9)), (Effective::Known(7), Effective::Known(9)));
    }

    #[test]
    fn only_one_side_offered_means_no_scaling() {
        // RFC 7323 §2.2: both must send the option, otherwise neither scales.
        assert_eq!(negotiate(Some(7), None), (Effective::Known(0), Effective::Known(0)));
        assert_eq!(negotiate(None, Some(9)), (Effective::Known(0), Effective::Known(0)));
    }

    #[test]
    fn shift_is_clamped_to_14() {
        // RFC 7323 §2.3: a shift above 14 is used as 14.
        assert_eq!(negotiate(Some(15), Some(20)), (Effective::Known(14), Effective::Known(14)));
    }

    #[test]
    fn syn_window_is_never_scaled() {
        // RFC 7323 §2.2: "The window field in a segment where the SYN bit is set
        // MUST NOT be scaled": 65535 stays 65535; a non-SYN one is 65535 << 7.
        assert_eq!(scaled(65535, true, Effective::Known(7)), 65535);
        assert_eq!(scaled(65535, false, Effective::Known(7)), 65535 * 128);
    }

    #[test]
    fn synack_alone_makes_its_sender_known() {
        // SYN not captured; SYN/ACK with shift 9: B's scale is 9 (it could only
        // send the option because A's SYN had it), A's stays unknown.
        let (mut a, mut b) = (Scale::default(), Scale::default());
        on_syn(&mut b, &mut a, true, Some(9));
        assert_eq!(effective(&b, &a), Effective::Known(9));
        assert_eq!(effective(&a, &b), Effective::Unknown);
    }

    #[test]
    fn syn_alone_leaves_scale_unknown() {
        // SYN with the option but no SYN/ACK captured: the peer may have refused.
        let (mut a, mut b) = (Scale::default(), Scale::default());
        on_syn(&mut a, &mut b, false, Some(7));
        assert_eq!(effective(&a, &b), Effective::Unknown);
        assert_eq!(scaled(1000, false, Effective::Unknown), 1000);
    }

    #[test]
    fn lower_bound_explains_in_flight() {
        // raw 1000: 1000 << 0 = 1000 >= 1000 → 0; 1001 needs 1000 << 1 = 2000 → 1;
        // 100_000 needs 1000 << 7 = 128_000 (<< 6 = 64_000 is too small) → 7.
        assert_eq!(lower_bound(1000, 1000), Some(0));
        assert_eq!(lower_bound(1000, 1001), Some(1));
        assert_eq!(lower_bound(1000, 100_000), Some(7));
        assert_eq!(lower_bound(0, 5), None);
    }
}
