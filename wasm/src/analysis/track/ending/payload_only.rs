//! The ending's half of the payload-only rule (stalls/payload_only.rs has the module
//! comment): bytes not acknowledged at the end are told only where the capture shows it.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};

/// Each direction's unacknowledged bytes at the end (ending.rs), kept only where the
/// capture shows them unacknowledged (module doc); `rows`: the connection's rows.
pub(super) fn unacknowledged(unacked: [Option<u64>; 2], rows: Option<&PacketColumns>, floor_s: f64) -> [Option<u64>; 2] {
    [0u8, 1].map(|d| {
        let b = unacked[d as usize].filter(|&b| b > 0)?;
        let p = rows?;
        let mine = |i: &usize| p.dir[*i] & 1 == d && p.len[*i] > 0;
        let (mut high, mut last_t) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for i in (0..p.t.len()).filter(mine) {
            high = high.max(p.seq[i] + f64::from(p.len[i]));
            last_t = last_t.max(p.t[i]);
        }
        let first_unacked = high - b as f64;
        let resent = (0..p.t.len()).filter(mine).any(|i| p.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 && p.seq[i] + f64::from(p.len[i]) > first_unacked);
        let peer_acks_less = (0..p.t.len()).any(|i| p.dir[i] & 1 != d && p.len[i] > 0 && p.t[i] >= last_t + floor_s && p.ack[i].is_finite() && p.ack[i] < high);
        (resent || peer_acks_less).then_some(b)
    })
}
