//! Bandwidth-delay product arithmetic (DESIGN.md "The stories it must explain"):
//! a window of W bytes lets at most W bytes travel per round trip, so it caps the rate
//! at W / RTT; a link of rate R needs R × RTT bytes in flight to stay busy.
//! The page's bandwidth-delay calculator asks [`calculate`] (the question `bdp`), so its
//! numbers and verdict are these functions' (issue 14: one Rust function per number).

use serde::{Deserialize, Serialize};

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

/// Window sizes of the calculator's table: 32 KiB, 64 KiB, … 16 MiB (powers of two,
/// as receive buffers are usually set).
pub const TABLE_WINDOWS: [f64; 10] = [
    32768.0, 65536.0, 131072.0, 262144.0, 524288.0, 1048576.0, 2097152.0, 4194304.0, 8388608.0, 16777216.0,
];

/// The calculator's inputs, as typed by the user (or seeded from the diagnosis's
/// evidence); None or non-positive = not given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BdpQuestion {
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub rtt_ms: Option<f64>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub window_bytes: Option<f64>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub link_bps: Option<f64>,
}

/// What limits a flow with these inputs (docs/ANALYSIS.md `diagnosis.evidence.verdict`,
/// the calculator's subset of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum BdpVerdict {
    /// The window's cap (window / RTT) is below the link rate.
    Window,
    /// The link is slower than the window allows.
    Link,
    /// An input is missing.
    #[default]
    Unknown,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BdpRow {
    pub window_bytes: f64,
    /// window / RTT, bit/s.
    pub cap_bps: f64,
    /// min(cap, link rate), bit/s.
    pub rate_bps: f64,
    /// The link, not this window, sets `rate_bps`.
    pub link_limited: bool,
    /// The row the given window rounds up to (highlighted).
    pub selected: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BdpAnswer {
    /// window / RTT, bit/s (window and RTT given).
    pub cap_bps: Option<f64>,
    /// min(cap, link), bit/s (all three given).
    pub attainable_bps: Option<f64>,
    /// link × RTT / 8, whole bytes (link and RTT given).
    pub need_bytes: Option<f64>,
    /// Smallest table window ≥ need_bytes; None when even 16 MiB is too small.
    pub window_for_link: Option<f64>,
    pub verdict: BdpVerdict,
    /// One row per [`TABLE_WINDOWS`] size (RTT given), else empty.
    pub table: Vec<BdpRow>,
}

/// The calculator: every number it shows, from its three inputs.
pub fn calculate(q: &BdpQuestion) -> BdpAnswer {
    let pos = |v: Option<f64>| v.filter(|x| x.is_finite() && *x > 0.0);
    let (rtt_s, window, link) = (pos(q.rtt_ms).map(|ms| ms / 1e3), pos(q.window_bytes), pos(q.link_bps));
    let cap = rtt_s.zip(window).map(|(r, w)| window_cap_bps(w, r));
    let need = rtt_s.zip(link).map(|(r, l)| bdp_bytes(l, r).round());
    let selected = window.map(|w| next_power_of_two(w.max(TABLE_WINDOWS[0])));
    BdpAnswer {
        cap_bps: cap,
        attainable_bps: cap.zip(link).map(|(c, l)| c.min(l)),
        need_bytes: need,
        window_for_link: need.and_then(|n| TABLE_WINDOWS.iter().copied().find(|&w| w >= n)),
        verdict: match (cap, link) {
            (Some(c), Some(l)) if c < l => BdpVerdict::Window,
            (Some(_), Some(_)) => BdpVerdict::Link,
            _ => BdpVerdict::Unknown,
        },
        table: match rtt_s {
            Some(r) => TABLE_WINDOWS
                .iter()
                .map(|&w| {
                    let c = window_cap_bps(w, r);
                    let link_limited = link.is_some_and(|l| l < c);
                    BdpRow { window_bytes: w, cap_bps: c, rate_bps: if link_limited { link.unwrap_or(c) } else { c }, link_limited, selected: selected == Some(w) }
                })
                .collect(),
            None => Vec::new(),
        },
    }
}

/// JSON in, JSON out (the wasm binding); a question that does not parse gets the
/// empty answer (verdict unknown), never a panic.
pub fn calculate_json(question: &str) -> String {
    let q = serde_json::from_str::<BdpQuestion>(question).unwrap_or_default();
    serde_json::to_string(&calculate(&q)).unwrap_or_else(|_| "{}".into())
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

    #[test]
    fn the_calculator_on_the_wifi_story() {
        // 64 KiB at 2.8 ms on a 533 Mbit/s link: the window caps it at 187 Mbit/s, so the
        // window is the limit; the link needs 186,550 B in flight, so 256 KiB is the
        // smallest table window that fills it (DESIGN.md's 802.11ac story).
        let a = calculate(&BdpQuestion { rtt_ms: Some(2.8), window_bytes: Some(65536.0), link_bps: Some(533e6) });
        assert_eq!(a.verdict, BdpVerdict::Window);
        assert_eq!((a.cap_bps.unwrap() / 1e6).round(), 187.0);
        assert_eq!(a.attainable_bps, a.cap_bps);
        assert_eq!(a.need_bytes, Some(186_550.0));
        assert_eq!(a.window_for_link, Some(262144.0));
        assert_eq!(a.table.len(), 10);
        assert_eq!(a.table.iter().filter(|r| r.selected).map(|r| r.window_bytes).collect::<Vec<_>>(), vec![65536.0]);
        // 256 KiB and up reach the full 533 Mbit/s: the link limits those rows.
        assert!(a.table.iter().all(|r| r.link_limited == (r.window_bytes >= 262144.0)));
        assert!(a.table.iter().filter(|r| r.link_limited).all(|r| r.rate_bps == 533e6));
        // 1 MiB on the same link: the link is the limit.
        assert_eq!(calculate(&BdpQuestion { window_bytes: Some(1048576.0), ..BdpQuestion { rtt_ms: Some(2.8), link_bps: Some(533e6), window_bytes: None } }).verdict, BdpVerdict::Link);
        // Missing or absurd inputs: unknown, no table without an RTT, never a panic.
        let none = calculate(&BdpQuestion { rtt_ms: Some(-1.0), window_bytes: Some(f64::NAN), link_bps: None });
        assert_eq!((none.verdict, none.table.len(), none.cap_bps), (BdpVerdict::Unknown, 0, None));
        assert!(calculate_json("{").contains("\"verdict\":\"unknown\""));
    }
}
