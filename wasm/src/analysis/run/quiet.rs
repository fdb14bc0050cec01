//! Connections that have gone quiet give back their logs' growth room while the capture
//! is still read (issue 43 item 4). A log's chunk grows by doubling (rows/store_log.rs),
//! so a short connection's packet rows end with up to half their chunk unused, and every
//! connection's read state lives until `finish`: on 100,000 short connections that room
//! is part of the high-water. Looked at once each, one sweep after it opened: a
//! connection with no packet since the previous look is shrunk to fit; one still busy
//! then is left as it is (a long transfer's slack is small next to its rows). A packet
//! that comes later grows the log again as before. Only capacity changes: every row,
//! and so every number and sentence, is the same.

use crate::analysis::track::conn::Conn;

/// Segments analysed between two looks (the time-order window's size,
/// capture/timeline.rs): each connection is looked at once, so the sweeps cost one
/// pass over the connections in all.
const EVERY: u32 = 1 << 16;

#[derive(Debug, Default)]
pub(super) struct QuietSweep {
    /// Segments since the last look.
    since: u32,
    /// The first connection not looked at yet.
    next: usize,
    /// Connections opened at the last look, and the newest packet time then (s since
    /// the file's first packet).
    opened: usize,
    at: f64,
}

impl QuietSweep {
    /// One segment analysed; `now`: its connection's latest packet time.
    #[inline]
    pub(super) fn tick(&mut self, conns: &mut [Box<Conn>], now: f64) {
        self.since += 1;
        if self.since >= EVERY {
            self.look(conns, now);
        }
    }

    /// Shrinks the connections opened before the last look that had no packet since it.
    #[cold]
    #[inline(never)]
    fn look(&mut self, conns: &mut [Box<Conn>], now: f64) {
        self.since = 0;
        let upto = self.opened.min(conns.len());
        for c in conns[self.next.min(upto)..upto].iter_mut().filter(|c| c.last_t < self.at) {
            c.release_slack();
        }
        self.next = upto;
        self.opened = conns.len();
        self.at = now;
    }
}
