//! The per-capture cache of what the queries read: sorted columns, their pyramids,
//! span lists. Built lazily, once per (connection, direction, series), the first
//! time a view asks; kept while the capture generation stays the same, least
//! recently used first out beyond [`CACHE_BUDGET`].

use super::intervals::SpanList;
use super::pyramid::PointColumn;
use super::request::Series;
use super::sources::{CumColumn, MarkerColumn};
use super::stalls::GapHistogram;

/// Heap bytes the cache may hold (one 10 M-packet connection's point series is
/// ~17 B per point, so this holds a few such series). The entry being answered is
/// kept even when it alone is larger.
pub const CACHE_BUDGET: usize = 384 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Points { conn: usize, dir: u8, series: Series },
    Cum { conn: usize, dir: u8, series: Series },
    Markers { conn: usize, dir: u8, series: Series },
    WindowLimited { conn: usize, dir: u8 },
    Gaps { conn: usize, dir: u8 },
    /// Threshold as f64 bits; the summary's stalls are not cached (they are in the summary).
    Stalls { conn: usize, dir: u8, threshold: u64 },
    Wifi { conn: usize, dir: u8 },
}

pub enum Entry {
    Points(PointColumn),
    Cum(CumColumn),
    Markers(MarkerColumn),
    /// Spans and, for window-limited, the active time.
    Spans(SpanList, Option<f64>),
    Gaps(GapHistogram),
    Wifi(crate::analysis::radio::WifiColumn),
}

impl Entry {
    fn bytes(&self) -> usize {
        match self {
            Entry::Points(p) => p.bytes(),
            Entry::Cum(c) => c.bytes(),
            Entry::Markers(m) => 24 * m.t.capacity(),
            Entry::Spans(s, _) => s.bytes(),
            Entry::Gaps(_) => 2048,
            Entry::Wifi(w) => w.bytes(),
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

    pub fn get_or_build(&mut self, key: Key, build: impl FnOnce() -> Entry) -> &Entry {
        self.tick += 1;
        let idx = match self.entries.iter().position(|e| e.0 == key) {
            Some(i) => i,
            None => {
                let entry = build();
                let size = entry.bytes();
                while !self.entries.is_empty() && self.held_bytes() + size > CACHE_BUDGET {
                    let oldest = (0..self.entries.len()).min_by_key(|&i| self.entries[i].2).unwrap_or(0);
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
