//! The Wi-Fi strip's series (issue 17 item 3): per bin of the rate grid, the PHY rate
//! and Retry share of one direction's 802.11 frames (analysis/capture/radio.rs defines both).
//! The column is built once per (connection, direction) and cached; an answer costs
//! two binary searches per bin, whatever the zoom.

use super::cache::{Cache, Entry, Key};
use super::request::{Valid, BINS_PER_COLUMN, MAX_COLUMNS};
use crate::analysis::radio::{RadioLog, WifiBins, WifiColumn};

/// The bins of direction `dir` overlapping [v.t0, v.t1]; `bin` is validated already.
pub fn answer(cache: &mut Cache, log: &RadioLog, conn: usize, dir: u8, v: &Valid, bin: f64) -> WifiBins {
    let (k0, k1) = ((v.t0 / bin).floor() as i64, (v.t1 / bin).floor() as i64);
    let k1 = k1.clamp(k0, k0.saturating_add(i64::from(BINS_PER_COLUMN * MAX_COLUMNS) - 1));
    match cache.get_or_build(Key::Wifi { conn, dir }, || Entry::Wifi(WifiColumn::new(log, dir))) {
        Entry::Wifi(c) => c.bins(k0, k1, bin),
        _ => WifiBins::default(),
    }
}
