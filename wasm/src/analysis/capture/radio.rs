//! The radio beside TCP (issue 17 item 3): on 802.11 captures with radiotap or PPI
//! headers, each frame's PHY rate and MAC Retry bit, per connection, and the per-bin
//! numbers the Wi-Fi strip draws (docs/ANALYSIS.md "Wi-Fi strip").
//!
//! MAC retries are the frames the duplicate filter drops (duplicates.rs): they are
//! logged here before that, because the retry share is about the air, not about TCP.

use crate::decode::Radio;
use serde::{Deserialize, Serialize};

/// Radio samples kept per capture at most (16 B each: 512 MiB would be the worst
/// case of 2^25); later frames are not logged (the strip ends there).
pub const MAX_RADIO_SAMPLES: usize = 1 << 25;

/// One connection's radio samples in capture order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RadioLog {
    /// Seconds since the first packet of the file.
    pub t: Vec<f64>,
    pub dir: Vec<u8>,
    /// PHY rate, kbit/s; 0 = the header did not say.
    pub rate_kbps: Vec<u32>,
    pub retry: Vec<bool>,
}

impl RadioLog {
    pub fn push(&mut self, t: f64, dir: u8, r: &Radio) {
        self.t.push(t);
        self.dir.push(dir);
        self.rate_kbps.push(r.rate_kbps);
        self.retry.push(r.retry);
    }
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// The Wi-Fi strip of one direction on the rate grid: entry k covers
/// [start + k·bin, start + (k+1)·bin).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WifiBins {
    /// Start of the first bin, s; the bin is the answer's `binSeconds`.
    pub start: f64,
    /// 802.11 frames of the direction in the bin (MAC retries included).
    pub frames: Vec<u32>,
    /// Mean PHY rate of those frames that state one, Mbit/s; null when none does.
    pub phy_rate_mbps: Vec<Option<f64>>,
    /// Share of the frames sent with the Retry bit (0..1); null when no frame.
    pub retry_share: Vec<Option<f64>>,
}

/// One direction's radio samples sorted by time, as running totals, so that any bin
/// is two binary searches away (the view's cost rule: bounded by the bins asked for,
/// never by the frames in view).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WifiColumn {
    t: Vec<f64>,
    /// Totals over samples [0, i): frames, retried frames, frames stating a rate, and
    /// the sum of their rates in Mbit/s.
    frames: Vec<u32>,
    retries: Vec<u32>,
    rated: Vec<u32>,
    rate_mbps: Vec<f64>,
}

impl WifiColumn {
    pub fn new(log: &RadioLog, dir: u8) -> WifiColumn {
        let mut idx: Vec<usize> = (0..log.len()).filter(|&i| log.dir[i] == dir).collect();
        idx.sort_by(|&a, &b| log.t[a].total_cmp(&log.t[b]));
        let mut c = WifiColumn { t: Vec::with_capacity(idx.len()), frames: vec![0], retries: vec![0], rated: vec![0], rate_mbps: vec![0.0] };
        for (n, &i) in idx.iter().enumerate() {
            c.t.push(log.t[i]);
            c.frames.push(n as u32 + 1);
            c.retries.push(c.retries[n] + u32::from(log.retry[i]));
            let kbps = log.rate_kbps[i];
            c.rated.push(c.rated[n] + u32::from(kbps > 0));
            c.rate_mbps.push(c.rate_mbps[n] + f64::from(kbps) / 1000.0);
        }
        c
    }

    pub fn bytes(&self) -> usize {
        8 * self.t.capacity() + 20 * self.frames.capacity()
    }

    /// Bins `k0..=k1` of `bin` seconds (bin k = [k·bin, (k+1)·bin), the rate grid):
    /// frames, mean PHY rate over the frames that state one (Mbit/s), Retry share.
    pub fn bins(&self, k0: i64, k1: i64, bin: f64) -> WifiBins {
        let n = (k1 - k0 + 1).max(0) as usize;
        let first_at = |k: i64| self.t.partition_point(|&t| ((t / bin).floor() as i64) < k);
        let mut out = WifiBins { start: k0 as f64 * bin, ..WifiBins::default() };
        let mut a = first_at(k0);
        for k in k0..k0 + n as i64 {
            let b = first_at(k + 1);
            let frames = self.frames[b] - self.frames[a];
            let rated = self.rated[b] - self.rated[a];
            out.frames.push(frames);
            out.phy_rate_mbps.push((rated > 0).then(|| (self.rate_mbps[b] - self.rate_mbps[a]) / f64::from(rated)));
            out.retry_share.push((frames > 0).then(|| f64::from(self.retries[b] - self.retries[a]) / f64::from(frames)));
            a = b;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_rate_and_retry_share_per_bin() {
        let mut log = RadioLog::default();
        let r = |kbps, retry| Radio { rate_kbps: kbps, retry, ..Radio::default() };
        // Bin 0 (0-100 ms): 300 and 150 Mbit/s, one of two retried; bin 1: no rate
        // stated; bin 2: nothing; the other direction is not counted.
        log.push(0.010, 0, &r(300_000, false));
        log.push(0.020, 0, &r(150_000, true));
        log.push(0.150, 0, &r(0, false));
        log.push(0.030, 1, &r(6_000, true));
        let b = WifiColumn::new(&log, 0).bins(0, 2, 0.1);
        assert_eq!(b.frames, vec![2, 1, 0]);
        assert_eq!(b.phy_rate_mbps, vec![Some(225.0), None, None]);
        assert_eq!(b.retry_share, vec![Some(0.5), Some(0.0), None]);
        assert_eq!(b.start, 0.0);
    }
}
