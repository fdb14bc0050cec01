//! A host's silences read by its own TCP timestamps (docs/ANALYSIS.md "Stall", "the
//! receiving host held its ACKs", and "Answer held on the path"; issue 39 item 8).
//!
//! A host stamps each segment with its TS clock when it sends it (RFC 7323 §3). Where it
//! sent nothing for a while, the capture sees the silence between its last packet before
//! and its first after; its TSvals on those two tell how much of that its own clock saw
//! pass between sending them. Kept: every silence of at least [`MIN_SILENCE_NS`] between
//! two consecutive TS-bearing packets of the host (rows of both, and the TSval advance),
//! up to [`MAX_SILENCES`] per host, and the host's clock rate measured where its clock
//! and the capture's agree (ts_clock.rs `OneWayDelay`, the lower hull of (TSval, capture
//! time), here without its delay bins). Recorded by the other side's `SenderClock`,
//! which sees each of the host's TSvals (`on_peer_tsval`) from its own first data on.

use crate::analysis::timing::ts_clock::OneWayDelay;

/// Shortest silence kept, ns (the stall threshold's floor, as sender_clock.rs `MIN_GAP_NS`).
pub const MIN_SILENCE_NS: i64 = 10_000_000;
/// Silences kept per host (12 B each), a documented cap: 12 KiB at most.
pub const MAX_SILENCES: usize = 1 << 10;

/// One silence of a host: its last packet before and first after (rows), and how many
/// ticks its TS clock advanced between them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TsSilence {
    pub row_before: u32,
    pub row_after: u32,
    pub ticks: u32,
}

/// A host's silences and its clock's tick, s (None where no stretch of its TSvals
/// agreed with a nominal clock rate: then no silence is read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TsSilences {
    pub tick_s: Option<f64>,
    pub silences: Vec<TsSilence>,
}

impl TsSilences {
    /// The silence from row `before` to row `after`, when one was kept: (ticks, the
    /// host's own time between sending them, s).
    pub fn between(&self, before: usize, after: usize) -> Option<(u32, f64)> {
        let tick = self.tick_s?;
        let s = self.silences.iter().find(|s| s.row_before as usize == before && s.row_after as usize == after)?;
        Some((s.ticks, f64::from(s.ticks) * tick))
    }
}

/// The recorder (module doc), fed every TS-bearing packet of the host in capture order.
#[derive(Debug, Default)]
pub(crate) struct PeerSilences {
    clock: OneWayDelay,
    /// The host's last TS-bearing packet: (capture ns, TSval, row).
    last: Option<(i64, u32, Option<u32>)>,
    silences: Vec<TsSilence>,
}

impl PeerSilences {
    pub fn on_packet(&mut self, t_ns: i64, tsval: u32, row: Option<u32>) {
        if let Some((t0, v0, r0)) = self.last {
            let ticks = tsval.wrapping_sub(v0);
            // Behind the last: reordered on the way or re-sent from the past; not a step.
            if (ticks as i32) < 0 {
                return;
            }
            if let (Some(a), Some(b), true) = (r0, row, t_ns - t0 >= MIN_SILENCE_NS && self.silences.len() < MAX_SILENCES) {
                crate::lean::push(&mut self.silences, TsSilence { row_before: a, row_after: b, ticks });
            }
        }
        self.clock.on_hull_point(t_ns, tsval);
        self.last = Some((t_ns, tsval, row));
    }

    /// The silences and the tick (granularity unknown for a host seen only through its
    /// peer's clock: one tick).
    pub fn finish(self) -> Option<TsSilences> {
        (!self.silences.is_empty()).then(|| TsSilences { tick_s: self.clock.tick_s(1), silences: self.silences })
    }
}
