//! Connections that have gone quiet give back their logs' growth room while the capture
//! is still read (issue 43 item 4). A log's chunk grows by doubling (rows/store_log.rs),
//! so a short connection's packet rows end with up to half their chunk unused, and every
//! connection's read state lives until `finish`: on 100,000 short connections that room
//! is part of the high-water. Looked at once each, one look after it opened: a
//! connection with no packet since the previous look is shrunk to fit; one still busy
//! then is left as it is (a long transfer's slack is small next to its rows). A packet
//! that comes later grows the log again as before. Only capacity changes: every row,
//! and so every number and sentence, is the same.
//!
//! The looks come with new connections, never per segment: a capture of one bulk
//! connection runs no instruction more per packet.

use crate::analysis::track::conn::Conn;

/// Connections opened between two looks: each connection is looked at once, so the
/// looks cost one pass over the connections in all.
const EVERY: usize = 4096;

#[derive(Debug, Default)]
pub(super) struct QuietSweep {
    /// The first connection not looked at yet.
    next: usize,
    /// Connections opened at the last look, and the time then (the opening segment's,
    /// s since the file's first packet).
    opened: usize,
    at: f64,
}

impl QuietSweep {
    /// A connection is about to be opened after `conns`, by a segment at `now`.
    #[inline]
    pub(super) fn opening(&mut self, conns: &mut [Box<Conn>], now: f64) {
        if !conns.is_empty() && conns.len() % EVERY == 0 {
            self.look(conns, now);
        }
    }

    /// Shrinks the connections opened before the last look that had no packet since it.
    #[cold]
    #[inline(never)]
    fn look(&mut self, conns: &mut [Box<Conn>], now: f64) {
        let upto = self.opened.min(conns.len());
        for c in conns[self.next.min(upto)..upto].iter_mut().filter(|c| c.last_t < self.at) {
            c.release_slack();
        }
        self.next = upto;
        self.opened = conns.len();
        self.at = now;
    }
}
