//! The stall rules that read more than the direction's rows (docs/ANALYSIS.md "Stall",
//! the reclassifications after the gap rules): waits inside a loss recovery whose
//! re-sends the capture did not see (reported_loss.rs), re-sends the receiver never
//! answered (receiver_silent.rs), and at a receiver-side capture the far part of the
//! round trip, unmeasured (far_part.rs `reclassify`) or bounded by the echoes
//! (`reclassify_loaded`). One list, run by the summary at its threshold and by the
//! view at any other (view/stalls.rs), so a stall gets the same cause in both.
//!
//! What the rules read beyond the rows and the summary — the recoveries the receiver
//! reported, the echoes' bounds, which host the capture ran on — is kept on the
//! connection's summary ([`LaterInputs`], `ConnectionSummary::stall_inputs`, not in the
//! report's JSON), only where there is any.

use crate::analysis::loss::reported::Recovery;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::{far_part, receiver_hold, receiver_silent, reported_loss};
use crate::analysis::timing::peer_silences::TsSilences;
use crate::analysis::timing::vantage::Vantage;

/// What the later rules read that the rows and the summary do not hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaterInputs {
    /// Each direction's loss recoveries its receiver reported (reported.rs).
    pub recoveries: [Vec<Recovery>; 2],
    /// Each direction's far-part lower bounds from its sender's echoes (far_bounds.rs):
    /// (capture time of the data, bound) s.
    pub far_bounds: [Vec<(f64, f64)>; 2],
    /// The direction whose sender the capture ran on, by TTL (vantage.rs `local_by_ttl`).
    pub local: Option<u8>,
    /// The capture holds no segment without payload (capture/facts.rs, the
    /// `payload-only` warning): none of the receivers' pure ACKs.
    pub payload_only: bool,
    /// Each host's silences by its own TCP timestamps (timing/peer_silences.rs), indexed
    /// by the host (0: the one that sent direction 0).
    pub silences: [Option<TsSilences>; 2],
}

impl LaterInputs {
    /// None where there is nothing to keep (the rules then do what they do with none).
    pub fn boxed(self) -> Option<Box<LaterInputs>> {
        let empty = self.recoveries.iter().all(Vec::is_empty) && self.far_bounds.iter().all(Vec::is_empty) && self.local.is_none() && !self.payload_only && self.silences.iter().all(Option::is_none);
        (!empty).then(|| Box::new(self))
    }
}

/// The connection's facts the later rules judge by.
#[derive(Clone, Copy, Debug)]
pub struct LaterRules<'a> {
    pub inputs: Option<&'a LaterInputs>,
    pub vantage: Vantage,
    /// Whether the path RTT is known (far_part.rs: unmeasured, the far part may fill a
    /// silence under 1 s).
    pub path_rtt_known: bool,
    /// The path round trip, s (held_ack_probe.rs).
    pub path_rtt: Option<f64>,
    /// The last packet's time, s since the file's first.
    pub capture_end: f64,
    pub data_direction: u8,
}

impl LaterRules<'_> {
    /// Re-labels direction `d`'s stalls found at `threshold_s` (module doc).
    pub fn apply(&self, stalls: &mut [Stall], packets: &PacketColumns, d: u8, threshold_s: f64) {
        let k = (d & 1) as usize;
        let none: &[Recovery] = &[];
        let recoveries = self.inputs.map_or(none, |i| i.recoveries[k].as_slice());
        reported_loss::reclassify(stalls, recoveries);
        // Re-sends a receiver-side capture saw arrive and the receiver never answered:
        // the receiver stopped, not the path.
        let receiver_on_host = self.inputs.is_some_and(|i| i.local == Some(1 - (d & 1)));
        if self.inputs.is_some_and(|i| i.payload_only) {
            // A capture without one pure ACK lacks every ACK a live receiver sends alone:
            // "not one acknowledged" cannot be told, nor that a wait was "a retransmission
            // timeout" or "on ACKs" — both say the ACKs did not come (review N, C-NOACKS).
            // (A receiver that answered every request with data has no pure ACK of its own
            // in a capture that holds them: that absence alone says nothing.)
            for s in stalls.iter_mut().filter(|s| matches!(s.cause, StallCause::RetransmissionTimeout | StallCause::AckWait)) {
                s.cause = StallCause::Unknown;
                s.ended_by = format!("{}; the capture holds none of the peer's pure ACKs (only segments with data), so whether the sender waited on ACKs that never came cannot be told", s.ended_by);
            }
            crate::analysis::stalls::payload_only::idle_after_timer(stalls, packets, d, threshold_s); // silent past any timer, then new data: idle
        } else {
            receiver_hold::reword(stalls, packets, d, crate::analysis::stalls::mss_estimate(packets, d), self.inputs.and_then(|i| i.silences[1 - k].as_ref())); // a batch of ACKs after a filling buffer: the receiver held them
            receiver_silent::reclassify(stalls, packets, d, self.vantage, receiver_on_host, self.capture_end);
        }
        crate::analysis::stalls::held_ack_probe::reclassify(stalls, packets, d, self.path_rtt); // a needless probe behind an ACK held for the peer's next message
        if d == self.data_direction {
            // A silence the unmeasured far part of the round trip may fill; one the loaded
            // far part, bounded by the echoes, fills.
            far_part::reclassify(stalls, self.vantage, self.path_rtt_known.then_some(0.0));
            let bounds = self.inputs.map_or(&[][..], |i| i.far_bounds[k].as_slice());
            far_part::reclassify_loaded(stalls, bounds, self.vantage, threshold_s);
        }
        crate::analysis::stalls::capture_stall::reclassify(stalls, packets, d, threshold_s); // a silence the capture made, flushed at once
    }
}
