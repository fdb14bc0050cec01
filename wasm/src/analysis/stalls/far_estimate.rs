//! The far part of the round trip at a receiver-side capture that never measured it
//! (docs/ANALYSIS.md `connection.stallThresholdMs`): no handshake, no timestamps, and no
//! data of the receiver's own for the sender to acknowledge, so `connection.pathRttMs` is
//! unknown (vantage.rs). The data still shows it: when the receiver's ACK covers
//! everything the sender had sent (as far as the capture saw) and the sender's next new
//! data follows it, that data left the sender when the ACK arrived — an ACK-clocked
//! sender (its congestion or receive window full) sends the moment an ACK opens room
//! (RFC 5681 §3; Jacobson 1988), so ACK → next data is one trip capture → sender →
//! capture. Other pairs are longer (the sender's application had nothing to send: a
//! pause) or shorter (data already in flight when the ACK left, not released by it). An
//! expert reads the round trip from the pairs that repeat; so does this: the lower
//! quartile of the pairs, trusted only when at least [`MIN_PAIRS`] pairs exist and at
//! least half of them lie within [`NEAR_FACTOR`] × of it (the pattern repeats, it is
//! no one pair's accident); where they do not, the shortest pairs (data in flight) are
//! dropped until the rest do. Used for the stall threshold only, where nothing better
//! exists: the path RTT stays unknown and no sentence quotes it as measured.

use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::far_part::FAR_RTT_BOUND_S;
use crate::analysis::stalls::is_data_segment;
// (In stalls/: the estimate serves the stall threshold alone.)

/// Fewest ACK → new-data pairs the estimate is made from (5 pairs of a 10 Mbit/s
/// download, its ACKs of everything passing while data was still in flight, read 1 ms).
pub const MIN_PAIRS: usize = 10;
/// A pair within this factor of the estimate repeats it.
pub const NEAR_FACTOR: f64 = 1.5;
/// Pairs kept at most (the estimate of a long capture is its first pairs').
pub const MAX_PAIRS: usize = 4096;

/// The estimate: seconds, the pairs it was made from, and how many of them lie within
/// [`NEAR_FACTOR`] × of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FarEstimate {
    pub seconds: f64,
    pub pairs: usize,
    pub near: usize,
    /// Shorter pairs dropped as data already in flight ([`repeating_from`]).
    pub shorter: usize,
}

/// ACK → released-data pairs of data direction `dir` (capture times), and the estimate
/// when it is trusted. A pair: the receiver's first ACK that covers everything the
/// capture saw `dir` send, then `dir`'s next segment of new data, with no data of `dir`
/// and no payload of the receiver between (a request would make the wait a turn).
pub fn ack_to_new_data(cols: &PacketColumns, dir: u8) -> Option<FarEstimate> {
    let mut high = f64::NEG_INFINITY;
    let mut acked_all_at: Option<f64> = None;
    let mut gaps: Vec<f64> = Vec::new();
    for i in 0..cols.t.len() {
        if cols.dir[i] != dir {
            if cols.len[i] > 0 {
                acked_all_at = None;
            } else if acked_all_at.is_none() && high.is_finite() && cols.ack[i] >= high {
                acked_all_at = Some(cols.t[i]);
            }
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let end = cols.seq[i] + f64::from(cols.len[i]);
        let new_data = cols.seq[i] >= high && cols.flags[i] & flag_bits::ANY_RETRANSMISSION == 0;
        if let (Some(ta), true) = (acked_all_at, new_data) {
            if gaps.len() < MAX_PAIRS {
                gaps.push(cols.t[i] - ta);
            }
        }
        acked_all_at = None;
        high = high.max(end);
    }
    estimate(gaps)
}

/// The lower quartile of `gaps` and how many repeat it; None below [`MIN_PAIRS`] or when
/// fewer than half lie within [`NEAR_FACTOR`] × of it. Where the pairs as a whole do not
/// repeat, the shortest are dropped one by one until the rest do ([`repeating_from`]),
/// and what the rest repeat is taken for the far part only where it is a plausible round
/// trip, at most [`FAR_RTT_BOUND_S`]: pairs that repeat beyond it, above shorter ones
/// that do not, are the sender's own cadence (a TLS server's 33-byte message every 6 s,
/// corelight PetitPotam `UnPatchedDCOpenFileRaw.pcapng` connection 3, its answers to the
/// client 0.05–3 s after its ACKs).
fn estimate(mut gaps: Vec<f64>) -> Option<FarEstimate> {
    gaps.retain(|g| g.is_finite() && *g > 0.0);
    gaps.sort_by(f64::total_cmp);
    (0..gaps.len())
        .find_map(|i| repeating_from(&gaps[i..]).map(|e| FarEstimate { shorter: i, ..e }))
        .filter(|e| e.shorter == 0 || e.seconds <= FAR_RTT_BOUND_S)
}

/// The estimate of `gaps` (sorted, all of them above the pairs dropped before it): their
/// lower quartile, trusted over at least [`MIN_PAIRS`] pairs of which at least half lie
/// within [`NEAR_FACTOR`] × of it.
///
/// A pair shorter than the far part is data already in flight when the ACK left, not
/// data the ACK released: the sender sent it before the ACK could reach it. Such pairs
/// do not repeat one value (each is wherever the next segment of the flight fell behind
/// the ACK of the last: 0–11 ms at suricata-verify `tcp-rst-unacked-stream-12`, whose
/// released pairs repeat at 0.34–0.38 s), so the shortest pairs above which the rest
/// repeat are dropped as such. Pairs longer than the far part (the sender's application
/// paused) never make a shorter estimate.
fn repeating_from(gaps: &[f64]) -> Option<FarEstimate> {
    if gaps.len() < MIN_PAIRS {
        return None;
    }
    let q = gaps[(gaps.len() - 1) / 4];
    let near = gaps.iter().filter(|&&g| g >= q && g <= NEAR_FACTOR * q).count();
    (2 * near >= gaps.len()).then_some(FarEstimate { seconds: q, pairs: gaps.len(), near, shorter: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lower_quartile_of_repeating_pairs() {
        // A packetlife-like download: most ACKs release data ~0.39 s later, two pauses of
        // the sender's application (3.2 s, 1.1 s) and one pair of data already in flight.
        let gaps = vec![0.400, 0.485, 0.485, 0.382, 0.388, 3.2, 0.386, 0.425, 0.389, 0.438, 1.1, 0.02];
        let e = estimate(gaps).expect("trusted");
        assert_eq!(e, FarEstimate { seconds: 0.386, pairs: 12, near: 8, shorter: 0 });
        // Scattered pairs: no estimate.
        assert_eq!(estimate(vec![0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]), None);
        // Too few: 5 pairs of a fast download whose ACKs of everything came while data
        // was already in flight read 977 µs.
        assert_eq!(estimate(vec![0.4; 9]), None, "too few pairs");
    }

    #[test]
    fn pairs_of_data_already_in_flight_are_dropped_below_the_repeating_ones() {
        // Small flights each ACKed segment by segment (suricata-verify
        // `tcp-rst-unacked-stream-12`): the ACK of a flight's first segment is followed
        // by its second 0–11 ms later (in flight, not released), the ACK of its last by
        // the next flight 0.34–0.38 s later. 8 in-flight pairs and 10 released ones: the
        // lower quartile of all 18 (index 4: 3 ms) has only itself and 4.5 ms within 1.5×
        // (2 < 9), so it is not trusted; dropping the shortest pairs one by one, the 13
        // from 4.5 ms are the first whose lower quartile (index 3: 0.341 s) the released
        // pairs repeat, all 10 within 1.5× (≤ 0.512 s), 10 ≥ 13 / 2.
        let in_flight = [0.0002, 0.0005, 0.0009, 0.002, 0.003, 0.0045, 0.007, 0.011];
        let released = [0.341, 0.349, 0.350, 0.357, 0.363, 0.367, 0.370, 0.372, 0.375, 0.380];
        let gaps: Vec<f64> = in_flight.iter().chain(released.iter()).copied().collect();
        assert_eq!(estimate(gaps), Some(FarEstimate { seconds: 0.341, pairs: 13, near: 10, shorter: 5 }));
        // With 5 released pairs, fewer than MIN_PAIRS remain before the in-flight ones
        // are dropped: no estimate.
        let gaps: Vec<f64> = in_flight.iter().chain(released[..5].iter()).copied().collect();
        assert_eq!(estimate(gaps), None);
        // A sender's own cadence: 33-byte messages every ~6 s (12 pairs at 5.83–6.10 s)
        // above 10 answers 0.05–3 s after the ACKs (PetitPotam `UnPatchedDCOpenFileRaw`
        // connection 3): the 6 s repeat, but no round trip is that long (FAR_RTT_BOUND_S).
        let mut gaps = vec![0.054, 0.105, 0.148, 0.176, 0.436, 0.561, 2.218, 2.219, 2.755, 2.975];
        gaps.extend([5.831, 5.880, 5.940, 5.942, 5.957, 5.958, 5.958, 5.966, 5.971, 5.975, 6.017, 6.097]);
        assert_eq!(estimate(gaps), None);
    }
}
