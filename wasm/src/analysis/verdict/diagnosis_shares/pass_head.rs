//! The head cut's part of the shares pass (transfer_head.rs): at the bulk phase's first
//! segment the counts start anew, while what the sender knew — the highest sequence
//! sent, the peer's ACK and window, the largest window so far — carries over, so the
//! bulk phase is judged with the state its first segment was sent in (a pass that
//! skipped the head would see the bulk's first flight with no ACK known). A child
//! module of pass.rs, so it reads the pass's own state.

use super::transfer_end::Candidates;
use super::{SharesPass, TimeShares};

impl SharesPass<'_> {
    /// Forgets the head's counts: what follows is counted from the next data segment,
    /// the bulk phase's first (the idle pause before it is the head's).
    pub(in super::super) fn restart(&mut self) {
        let o = &self.out;
        self.out = TimeShares { max_window: f64::NAN, min_window: f64::NAN, mss: o.mss, windows_trusted: o.windows_trusted, peer_silent: o.peer_silent, ..Default::default() };
        self.open = None;
        self.first_seq = f64::NAN;
        self.first_t = 0.0;
        self.idle_seen = false;
        self.loss_seen = false;
        self.acked_at = None;
        self.request_at = None;
        self.last_request_at = None;
        self.open_acked = 0.0;
        self.burst_bytes = 0.0;
        self.pauses = Candidates::new(self.full_segment);
        self.idle_burst_from = 0.0;
    }
}
