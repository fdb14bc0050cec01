//! Per-direction totals the connection keeps for every packet, stored or not: packets,
//! bytes, the advertised window's range, the largest bytes in flight, the analysis
//! flags the summary counts, and the payload per time bin (rates/throughput.rs).

use super::window::MinMax;
use crate::analysis::rates::throughput::{Bins, RunningBins};
use crate::decode::tcp_flags::{RST, SYN};

/// Per-direction totals, accumulated by the analyzer as packets arrive (while they
/// are in cache, and for every packet, including those beyond the storage limit).
#[derive(Debug)]
pub(crate) struct Totals {
    pub(crate) packets: u64,
    pub(crate) payload: u64,
    pub(crate) bytes: u64,
    /// Advertised window min/max (min > max: none seen). Plain integers instead of
    /// Options: this is per direction of up to `max_connections` connections.
    pub(crate) rwnd_min: u64,
    pub(crate) rwnd_max: u64,
    /// Largest bytes in flight + 1 (0: none).
    pub(crate) max_bif_1: u64,
    /// Count of each analysis flag bit the summary reports (bits 8..=17: RETRANSMISSION
    /// to OUT_OF_ORDER; the ACK-side bits above are not counted).
    pub(crate) count: [u32; 10],
    pub(crate) throughput: Bins,
}

impl Totals {
    pub fn new(bin_seconds: f64) -> Totals {
        Totals { packets: 0, payload: 0, bytes: 0, rwnd_min: u64::MAX, rwnd_max: 0, max_bif_1: 0, count: [0; 10], throughput: Bins::new(bin_seconds) }
    }

    #[inline]
    pub fn add(&mut self, t: f64, len: u32, wire_len: u32, flags: u32, win: Option<u64>, in_flight: Option<u64>) {
        self.packets += 1;
        self.payload += len as u64;
        self.bytes += wire_len as u64;
        // receiveWindow: the window this side advertises, SYN and RST excluded
        // (a SYN's window is unscaled, a RST's meaningless).
        if let (0, Some(w)) = (flags & (SYN | RST) as u32, win) {
            self.rwnd_min = self.rwnd_min.min(w);
            self.rwnd_max = self.rwnd_max.max(w);
        }
        if let Some(b) = in_flight {
            self.max_bif_1 = self.max_bif_1.max(b.saturating_add(1));
        }
        let mut bits = (flags >> 8) & 0x3ff;
        while bits != 0 {
            self.count[bits.trailing_zeros() as usize] += 1;
            bits &= bits - 1;
        }
        self.throughput.add(t, len);
    }

    /// Packets so far and the payload bins so far (analyzer.rs `running`).
    pub fn running(&self) -> (u64, RunningBins<'_>) {
        (self.packets, self.throughput.running(self.payload))
    }

    pub(crate) fn rwnd(&self) -> Option<MinMax> {
        (self.rwnd_min <= self.rwnd_max).then_some(MinMax { min: self.rwnd_min, max: self.rwnd_max })
    }
    pub(crate) fn max_bif(&self) -> Option<u64> {
        self.max_bif_1.checked_sub(1)
    }
}
