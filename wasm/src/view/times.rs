//! A sorted time column that several series of one connection can share: the
//! series built in one pass over the store (packet_series.rs) whose rows are a run of
//! consecutive packets of one side hold a window into that side's times instead of a
//! copy (8 B per point saved per series; seven series share two arrays on a bulk
//! transfer).

use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct Times {
    base: Arc<Vec<f64>>,
    start: usize,
    len: usize,
}

impl Times {
    /// A column of its own.
    pub fn owned(t: Vec<f64>) -> Times {
        let len = t.len();
        Times { base: Arc::new(t), start: 0, len }
    }

    /// `base[start..start + len]` (clamped to the base).
    pub fn window(base: &Arc<Vec<f64>>, start: usize, len: usize) -> Times {
        let start = start.min(base.len());
        Times { base: Arc::clone(base), start, len: len.min(base.len() - start) }
    }

    /// Heap bytes of the array behind this column (shared or not).
    pub fn base_bytes(&self) -> usize {
        8 * self.base.capacity()
    }

    /// Identity of the array behind this column, so a set of series counts it once.
    pub fn base_id(&self) -> usize {
        Arc::as_ptr(&self.base) as usize
    }
}

impl Deref for Times {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.base[self.start..self.start + self.len]
    }
}

impl PartialEq for Times {
    fn eq(&self, other: &Times) -> bool {
        **self == **other
    }
}
