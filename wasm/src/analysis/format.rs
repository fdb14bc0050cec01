//! Number formatting for the diagnosis text and the stall `ended_by` strings. Same
//! conventions as web/model/format.ts, so that the words the wasm writes and the
//! numbers the UI draws agree:
//! - bit rates with SI prefixes (DESIGN.md "Throughput"): "187 Mbit/s";
//! - byte counts (windows, buffers) with IEC binary prefixes: "64 KiB", "3 MiB";
//! - durations: "2.8 ms", "40 ms", "1.2 s"; timestamps: "1.234 s";
//! - below 10 one decimal (trailing ".0" dropped), from 10 up whole numbers.

/// 1 decimal below 10, whole numbers from 10, no trailing ".0".
fn num(v: f64) -> String {
    // Round first so that 9.96 becomes "10" (not "10.0").
    let tenths = (v * 10.0).round();
    let r1 = tenths / 10.0;
    if r1.abs() < 10.0 {
        // What `format!("{:.1}", r1)` less a trailing ".0" gives, written without the
        // float formatter (this runs several times per connection: issue 16): r1 is the
        // double nearest to tenths / 10 with |tenths| < 100, so its one-decimal form
        // is exactly those digits; the sign as Rust prints it, "-0" included.
        let k = tenths.abs() as u32;
        let mut s = String::with_capacity(8);
        if r1.is_sign_negative() {
            s.push('-');
        }
        s.push(char::from(b'0' + (k / 10) as u8));
        if k % 10 != 0 {
            s.push('.');
            s.push(char::from(b'0' + (k % 10) as u8));
        }
        s
    } else {
        // Half away from zero, like JavaScript's Math.round for positive values
        // ("{:.0}" would round half to even and disagree with format.ts). An integral
        // f64 below 2^53 prints as that integer: written as one, without the float
        // formatter (a tenth of the cost; every connection's ending has a duration).
        let r = v.round();
        if r.abs() < 9.0e15 {
            (r as i64).to_string()
        } else {
            format!("{r}")
        }
    }
}

fn scaled(v: f64, base: f64, units: &[&str]) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let mut x = v;
    let mut k = 0;
    // Move up a prefix once the *rounded* value reaches the base, so that 1023.7 KiB
    // reads "1 MiB" rather than "1024 KiB" (num() rounds values ≥ 10 to integers).
    while k + 1 < units.len() && x.abs().round() >= base {
        x /= base;
        k += 1;
    }
    with_unit(num(x), units[k])
}

/// `number unit`, appended to the number's own string (one allocation, not three).
fn with_unit(mut number: String, unit: &str) -> String {
    number.push(' ');
    number.push_str(unit);
    number
}

/// Byte counts with IEC prefixes: 65536 → "64 KiB", 186550 → "182 KiB", 1448 → "1.4 KiB".
pub fn format_bytes(bytes: f64) -> String {
    scaled(bytes, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB"])
}

/// Bit rates with SI prefixes: 187_245_714.0 → "187 Mbit/s".
pub fn format_rate(bps: f64) -> String {
    scaled(bps, 1000.0, &["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"])
}

/// Durations: 0.0028 → "2.8 ms", 0.04 → "40 ms", 0.0005 → "500 µs", 2.5 → "2.5 s".
pub fn format_duration(s: f64) -> String {
    if !s.is_finite() {
        return "–".to_string();
    }
    let a = s.abs();
    if a == 0.0 {
        "0 s".to_string()
    } else if a < 0.000_999_5 {
        with_unit(num(s * 1e6), "µs")
    } else if a < 0.999_5 {
        with_unit(num(s * 1e3), "ms")
    } else {
        with_unit(num(s), "s")
    }
}

/// A point on the capture's time axis (seconds since the first packet): "1.234 s".
pub fn format_timestamp(s: f64) -> String {
    format!("{:.3} s", s)
}

/// "1 tail loss probe", "2 retransmission timeouts".
pub fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The loss-recovery timers, named as a kernel counts them (TCPLossProbes, TCPTimeouts),
/// probes first (a probe fires before the timeout it may save): "5 tail loss probes and
/// 1 retransmission timeout". None when there are neither. The loss text and the outage
/// episodes say them the same way.
pub fn timers_phrase(probes: u64, timeouts: u64) -> Option<String> {
    match (probes, timeouts) {
        (0, 0) => None,
        (0, t) => Some(plural(t, "retransmission timeout")),
        (p, 0) => Some(plural(p, "tail loss probe")),
        (p, t) => Some(format!("{} and {}", plural(p, "tail loss probe"), plural(t, "retransmission timeout"))),
    }
}

/// A share 0..1 as a whole percentage: 0.912 → "91 %".
pub fn format_percent(share: f64) -> String {
    if !share.is_finite() {
        return "–".to_string();
    }
    // Half away from zero, as JavaScript's Math.round does for the page (web/model/
    // format.mjs): "{:.0}" rounds half to even and wrote 12 % where the page wrote 13 %
    // for 1/8 (boundary/format_samples.rs checks the two agree).
    format!("{} %", (share * 100.0).round())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_binary_prefixes() {
        assert_eq!(format_bytes(65536.0), "64 KiB");
        assert_eq!(format_bytes(32768.0), "32 KiB");
        assert_eq!(format_bytes(1448.0), "1.4 KiB");
        assert_eq!(format_bytes(500.0), "500 B");
        assert_eq!(format_bytes(186_550.0), "182 KiB");
        // 3 MB window of the Wi-Fi uplink story.
        assert_eq!(format_bytes(3.0 * 1024.0 * 1024.0), "3 MiB");
        assert_eq!(format_bytes(16.0 * 1024.0 * 1024.0), "16 MiB");
        // 1023.9 KiB rounds to "1024 KiB", which reads better as "1 MiB".
        assert_eq!(format_bytes(1024.0 * 1024.0 - 10.0), "1 MiB");
    }

    #[test]
    fn rates_use_si_prefixes() {
        // 64 KiB / 2.8 ms = 187,245,714 bit/s (DESIGN.md's 802.11ac story).
        assert_eq!(format_rate(65536.0 * 8.0 / 0.0028), "187 Mbit/s");
        assert_eq!(format_rate(32768.0 * 8.0 / 0.0028), "94 Mbit/s");
        assert_eq!(format_rate(533e6), "533 Mbit/s");
        assert_eq!(format_rate(1.25e9), "1.3 Gbit/s");
        assert_eq!(format_rate(9_960.0), "10 kbit/s");
        assert_eq!(format_rate(999_700.0), "1 Mbit/s");
        assert_eq!(format_rate(12.0), "12 bit/s");
        assert_eq!(format_rate(12.5e9), "13 Gbit/s"); // half up, as in format.ts
    }

    /// The hand-written one-decimal form equals the formatter's (the old `num`).
    #[test]
    fn num_matches_the_float_formatter() {
        fn by_formatter(v: f64) -> String {
            let r1 = (v * 10.0).round() / 10.0;
            if r1.abs() < 10.0 {
                let s = format!("{:.1}", r1);
                s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
            } else {
                format!("{}", v.round())
            }
        }
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values = vec![0.0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.95, 9.94, 9.95, 9.96, -9.95, -9.96, 1e-300, f64::NAN, f64::INFINITY];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            values.push((unit - 0.5) * 24.0);
            values.push((x % 2000) as f64 / 100.0 - 10.0);
        }
        for v in values {
            assert_eq!(num(v), by_formatter(v), "{v:e}");
        }
    }

    #[test]
    fn durations_and_times() {
        assert_eq!(format_duration(0.0028), "2.8 ms");
        assert_eq!(format_duration(0.04), "40 ms");
        assert_eq!(format_duration(0.0005), "500 µs");
        assert_eq!(format_duration(1.2), "1.2 s");
        assert_eq!(format_duration(0.9999), "1 s");
        assert_eq!(format_timestamp(1.2344), "1.234 s");
        assert_eq!(format_percent(0.912), "91 %");
    }
}
