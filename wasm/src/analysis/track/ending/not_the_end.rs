//! The resets and FINs that ended nothing (ending.rs `NotTheEnd`), as the capture ends.

use super::{Closing, Early, NotTheEnd, Side};

impl Closing {
    /// The closing as it stands once the capture is read: a reset noted as refusing the
    /// SYN ended nothing when the SYN/ACK (`syn_ack`, ns) came after it — the server
    /// accepted a later copy of the SYN and the connection went on.
    /// `syn_ack`: its capture time (ns, `HandshakeTimes`). Every reset sent before it
    /// ended nothing then, refusal or not.
    pub(crate) fn with_handshake_completed(&self, syn_ack: Option<i64>) -> Closing {
        let mut c = self.clone();
        c.syn_ack_ns = syn_ack.map(|sa| sa - c.epoch_ns);
        if c.reset_end().is_some_and(|(_, m, _, _, _)| c.syn_ack_ns.is_some_and(|sa| sa > m.t_ns)) {
            c.reset = None;
        }
        c
    }

    /// `sides` as the capture ends: a reset its sender sent new data after ended
    /// nothing (see `note`).
    pub(super) fn with_data_after_reset(&self, sides: &[Side; 2]) -> Closing {
        let mut c = self.clone();
        if let Some(r) = c.reset_end().filter(|r| r.3.is_some() && sides[r.0 as usize].sent_high > r.3) {
            let u = c.unusual_mut();
            super::bump(&mut u.data_after_resets[r.0 as usize]);
            u.first_data_after_reset.get_or_insert(Early { by: r.0, at: r.1, unacceptable: false });
            c.reset = None;
        }
        c
    }

    /// The resets that ended nothing: all sent before a SYN/ACK that came (the
    /// connection went on), else those the client drops (`NotTheEnd`).
    pub(super) fn resets_ended_nothing(&self) -> Option<NotTheEnd> {
        let u = self.unusual();
        let early = if self.syn_ack_ns.is_some() {
            u.first_early_reset.map(|f| (u.early_resets, f))
        } else {
            u.first_unacceptable.map(|f| (u.unacceptable_resets, f))
        };
        let Some((count, first)) = early else {
            let first = u.first_data_after_reset?;
            return Some(not_the_end(first, u.data_after_resets, "data-after", None));
        };
        let why = if first.unacceptable { "syn-not-acknowledged" } else { "handshake-after" };
        Some(not_the_end(first, count, why, self.syn_ack_ns))
    }
}

pub(super) fn not_the_end(first: Early, count: [u32; 2], why: &'static str, syn_ack_ns: Option<i64>) -> NotTheEnd {
    let secs = |ns: i64| ns as f64 / 1e9;
    NotTheEnd { by: first.by, at: secs(first.at.t_ns), frame: first.at.frame, count: count.map(u64::from), why, syn_ack_at: syn_ack_ns.map(secs) }
}
