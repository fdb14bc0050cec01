//! Bandwidth-delay product arithmetic (DESIGN.md "The stories it must explain"):
//! a window of W bytes lets at most W bytes travel per round trip, so it caps the rate
//! at W / RTT; a link of rate R needs R × RTT bytes in flight to stay busy.
//! Same formulas as web/model/bdp.ts.

/// Highest rate (bit/s) a window of `window_bytes` allows at round-trip time `rtt_s`.
pub fn window_cap_bps(window_bytes: f64, rtt_s: f64) -> f64 {
    window_bytes * 8.0 / rtt_s
}

/// Bytes that must be in flight to keep a `rate_bps` link busy at `rtt_s`.
pub fn bdp_bytes(rate_bps: f64, rtt_s: f64) -> f64 {
    rate_bps * rtt_s / 8.0
}

/// Smallest power of two ≥ `bytes` (receive buffers are usually set that way).
pub fn next_power_of_two(bytes: f64) -> f64 {
    if bytes.is_nan() || bytes <= 1.0 {
        return 1.0;
    }
    2f64.powi(bytes.log2().ceil() as i32)
}

/// Buffer to recommend to a receiver whose window `max_window` limited the flow. We
/// cannot see the link's capacity in a window-limited capture (the window hides it),
/// so we ask for 4× the window, rounded up to a power of two: enough for 4× the rate
/// at this RTT. For the 802.11ac story, 64 KiB → 256 KiB, which the write-up showed
/// is the first size reaching the full 533 Mbit/s at 2.8 ms (BDP 186,550 B).
pub fn recommended_window(max_window: f64) -> f64 {
    next_power_of_two(4.0 * max_window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wifi_story_numbers() {
        // 533 Mbit/s × 2.8 ms = 186,550 bytes (DESIGN.md).
        assert_eq!(bdp_bytes(533e6, 0.0028).round(), 186_550.0);
        // 64 KiB / 2.8 ms ≈ 187 Mbit/s; 32 KiB → 94; 128 KiB → 374; 256 KiB → 749 > 533.
        assert_eq!((window_cap_bps(65536.0, 0.0028) / 1e6).round(), 187.0);
        assert_eq!((window_cap_bps(32768.0, 0.0028) / 1e6).round(), 94.0);
        assert_eq!((window_cap_bps(131072.0, 0.0028) / 1e6).round(), 374.0);
        assert!(window_cap_bps(262144.0, 0.0028) > 533e6);
        assert_eq!(recommended_window(65535.0), 262144.0);
        assert_eq!(recommended_window(65536.0), 262144.0);
        assert_eq!(next_power_of_two(186_550.0), 262144.0);
    }
}
