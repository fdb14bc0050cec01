//! The per-capture cache of what the queries read: sorted columns, their pyramids,
//! span lists. Built lazily, once per (connection, direction, series), the first
//! time a view asks; kept while the capture generation stays the same, least
//! recently used first out beyond [`CACHE_BUDGET`]. The per-packet series of the
//! connection direction viewed last (packet_series.rs, built together in one pass)
//! are kept whatever their size: like the store they come from they are O(packets)
//! (~44 B per packet on a bulk transfer, tests/view_scale.rs prints it), and
//! evicting them while the user zooms would rebuild them on every other query.

use super::intervals::SpanList;
use super::packet_series::PacketSeries;
use super::pyramid::PointColumn;
use super::request::Series;
use super::sources::MarkerColumn;
use super::stalls::GapHistogram;

/// Heap bytes the cache may hold besides the packet series last used. The entry
/// being answered is kept even when it alone is larger.
pub const CACHE_BUDGET: usize = 384 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Every per-packet series of one sender direction (packet_series.rs).
    Packets { conn: usize, dir: u8 },
    /// RTT (built from the RTT samples).
    Points { conn: usize, dir: u8, series: Series },
    Markers { conn: usize, dir: u8, series: Series },
    WindowLimited { conn: usize, dir: u8 },
    Gaps { conn: usize, dir: u8 },
    /// Threshold as f64 bits; the summary's stalls are not cached (they are in the summary).
    Stalls { conn: usize, dir: u8, threshold: u64 },
    Wifi { conn: usize, dir: u8 },
    /// An MPTCP connection's data-level rate (`mptcp[]` position, MPTCP direction).
    Mptcp { group: u32, md: u8 },
}

pub enum Entry {
    Packets(Box<PacketSeries>),
    Points(PointColumn),
    /// The sender's in flight at a receiver-side capture and its label bound, bytes.
    Estimate(PointColumn, Option<f64>),
    Markers(MarkerColumn),
    /// Spans and, for window-limited, the active time.
    Spans(SpanList, Option<f64>),
    Gaps(GapHistogram),
    Wifi(crate::analysis::radio::WifiColumn),
    /// Events with their running total (a rate that is not per packet: `mptcpData`).
    Cum(super::sources::CumColumn),
}

impl Entry {
    fn bytes(&self) -> usize {
        match self {
            Entry::Packets(p) => p.bytes(),
            Entry::Points(p) | Entry::Estimate(p, _) => p.bytes(),
            Entry::Markers(m) => 24 * m.t.capacity(),
            Entry::Spans(s, _) => s.bytes(),
            Entry::Gaps(_) => 2048,
            Entry::Wifi(w) => w.bytes(),
            Entry::Cum(c) => c.bytes(),
        }
    }
}

#[derive(Default)]
pub struct Cache {
    generation: Option<u32>,
    entries: Vec<(Key, Entry, u64, usize)>,
    tick: u64,
}

impl Cache {
    /// Drops everything when the capture generation changes.
    pub fn generation(&mut self, g: u32) {
        if self.generation != Some(g) {
            self.entries.clear();
            self.generation = Some(g);
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.generation = None;
    }

    pub fn held_bytes(&self) -> usize {
        self.entries.iter().map(|e| e.3).sum()
    }

    /// The entry for `key` if it is cached.
    pub fn get(&self, key: &Key) -> Option<&Entry> {
        self.entries.iter().find(|e| e.0 == *key).map(|e| &e.1)
    }

    /// The point column of `series` for sender `dir` of connection `conn`, if built.
    pub fn point_column(&self, conn: usize, dir: u8, series: Series) -> Option<&PointColumn> {
        match self.get(&Key::Packets { conn, dir }) {
            Some(Entry::Packets(p)) if p.point(series).is_some() => p.point(series),
            _ => match self.get(&Key::Points { conn, dir, series }) {
                Some(Entry::Points(p)) | Some(Entry::Estimate(p, _)) => Some(p),
                _ => None,
            },
        }
    }

    pub fn get_or_build(&mut self, key: Key, build: impl FnOnce() -> Entry) -> &Entry {
        self.tick += 1;
        let idx = match self.entries.iter().position(|e| e.0 == key) {
            Some(i) => i,
            None => {
                let entry = build();
                let size = entry.bytes();
                // The packet series used last stay (see the module's comment).
                let kept = (0..self.entries.len()).filter(|&i| matches!(self.entries[i].0, Key::Packets { .. })).max_by_key(|&i| self.entries[i].2);
                let kept = if matches!(key, Key::Packets { .. }) { None } else { kept.map(|i| self.entries[i].0) };
                let budgeted = |e: &(Key, Entry, u64, usize)| Some(e.0) != kept;
                while self.entries.iter().filter(|e| budgeted(e)).map(|e| e.3).sum::<usize>() + size > CACHE_BUDGET {
                    let Some(oldest) = (0..self.entries.len()).filter(|&i| budgeted(&self.entries[i])).min_by_key(|&i| self.entries[i].2) else { break };
                    self.entries.swap_remove(oldest);
                }
                self.entries.push((key, entry, 0, size));
                self.entries.len() - 1
            }
        };
        self.entries[idx].2 = self.tick;
        &self.entries[idx].1
    }
}
