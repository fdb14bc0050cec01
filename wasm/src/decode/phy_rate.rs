//! PHY data rates of 802.11n/ac/ax frames from their radiotap MCS, VHT and HE fields:
//! rate = data subcarriers × bits per subcarrier × coding rate × streams / symbol time
//! (IEEE 802.11-2020 §19.5 HT, §21.5 VHT MCS tables; 802.11ax-2021 §27.5 HE), the
//! formula Wireshark's radiotap dissector and its MCS tables agree with
//! (e.g. HT MCS 7 at 20 MHz, long GI: 52 × 6 × 5/6 / 4 µs = 65 Mbit/s).
//! Returns (kbit/s, spatial streams), or None when a needed field is not known.

/// (bits per subcarrier, coding rate numerator, denominator) of MCS 0..=11.
const MODULATION: [(u32, u32, u32); 12] = [
    (1, 1, 2),
    (2, 1, 2),
    (2, 3, 4),
    (4, 1, 2),
    (4, 3, 4),
    (6, 2, 3),
    (6, 3, 4),
    (6, 5, 6),
    (8, 3, 4),
    (8, 5, 6),
    (10, 3, 4),
    (10, 5, 6),
];

/// kbit/s for `subcarriers` data subcarriers, `mcs`, `nss` streams, a symbol of
/// `symbol_ns` nanoseconds.
fn rate(subcarriers: u32, mcs: u8, nss: u8, symbol_ns: u32) -> Option<(u32, u8)> {
    let &(bits, num, den) = MODULATION.get(usize::from(mcs))?;
    if nss == 0 || symbol_ns == 0 {
        return None;
    }
    // bits per symbol / ns = Gbit/s; × 1e6 for kbit/s (rounded to the nearest kbit/s).
    let bits_per_symbol = u64::from(subcarriers * bits * u32::from(nss) * num);
    let kbps = (bits_per_symbol * 1_000_000 + u64::from(den * symbol_ns) / 2) / u64::from(den * symbol_ns);
    Some((kbps as u32, nss))
}

/// HT (radiotap field 19: known, flags, index). Index 0..=31: streams = index / 8 + 1,
/// modulation = index % 8. Bandwidth 20 or 40 MHz (52 / 108 data subcarriers); guard
/// interval 800 or 400 ns (symbol 4.0 / 3.6 µs). The 20 MHz and long-GI defaults
/// apply when the field says the bandwidth or GI is not known.
pub fn ht(known: u8, flags: u8, index: u8) -> Option<(u32, u8)> {
    if known & 0x02 == 0 || index > 31 {
        return None;
    }
    let forty = known & 0x01 != 0 && flags & 0x03 == 1;
    let short_gi = known & 0x04 != 0 && flags & 0x04 != 0;
    rate(if forty { 108 } else { 52 }, index % 8, index / 8 + 1, if short_gi { 3_600 } else { 4_000 })
}

/// VHT (radiotap field 21: known u16, flags, bandwidth, mcs_nss of user 0). Bandwidth
/// codes 0 → 20, 1–3 → 40, 4–10 → 80, 11–25 → 160 MHz (radiotap VHT "bandwidth");
/// data subcarriers 52 / 108 / 234 / 468.
pub fn vht(known: u16, flags: u8, bandwidth: u8, mcs_nss: u8) -> Option<(u32, u8)> {
    let (mcs, nss) = (mcs_nss >> 4, mcs_nss & 0x0f);
    if known & 0x0040 == 0 || mcs > 9 {
        return None;
    }
    let subcarriers = match bandwidth {
        0 => 52,
        1..=3 => 108,
        4..=10 => 234,
        11..=25 => 468,
        _ => return None,
    };
    let short_gi = known & 0x0004 != 0 && flags & 0x04 != 0;
    rate(subcarriers, mcs, nss, if short_gi { 3_600 } else { 4_000 })
}

/// HE (radiotap field 23: data1..data6). MCS in data3 bits 8–11 (known: data1 0x0020),
/// bandwidth / RU in data5 bits 0–3 (known: data1 0x4000), GI in data5 bits 4–5
/// (known: data2 0x0002; 0.8 / 1.6 / 3.2 µs), NSTS in data6 bits 0–3. Symbol = 12.8 µs
/// plus the GI; data subcarriers 234 / 468 / 980 / 1960 for 20–160 MHz, and 24, 48,
/// 102, 234, 468, 980, 1960 for RUs of 26 to 2×996 tones.
pub fn he(d: &[u16; 6]) -> Option<(u32, u8)> {
    if d[0] & 0x0020 == 0 || d[0] & 0x4000 == 0 {
        return None;
    }
    let mcs = ((d[2] >> 8) & 0x0f) as u8;
    let subcarriers = match d[4] & 0x0f {
        0 => 234,
        1 => 468,
        2 => 980,
        3 => 1960,
        4 => 24,
        5 => 48,
        6 => 102,
        7 => 234,
        8 => 468,
        9 => 980,
        10 => 1960,
        _ => return None,
    };
    let gi_ns = match (d[1] & 0x0002 != 0, (d[4] >> 4) & 0x03) {
        (false, _) | (true, 0) => 800,
        (true, 1) => 1_600,
        (true, 2) => 3_200,
        _ => return None,
    };
    rate(subcarriers, mcs, (d[5] & 0x0f) as u8, 12_800 + gi_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ht_table_values() {
        // IEEE 802.11-2020 Table 19-27: MCS 7 20 MHz 65 / 72.2; 40 MHz 135 / 150.
        assert_eq!(ht(0x07, 0x00, 7), Some((65_000, 1)));
        assert_eq!(ht(0x07, 0x04, 7), Some((72_222, 1)));
        assert_eq!(ht(0x07, 0x01, 7), Some((135_000, 1)));
        assert_eq!(ht(0x07, 0x05, 15), Some((300_000, 2)));
        assert_eq!(ht(0x02, 0x01, 0), Some((6_500, 1))); // bandwidth not known: 20 MHz
        assert_eq!(ht(0x00, 0x00, 7), None); // index not known
    }

    #[test]
    fn vht_table_values() {
        // Table 21-40 ff.: 80 MHz MCS 9, 1 SS, short GI = 433.3 Mbit/s; 2 SS = 866.7.
        assert_eq!(vht(0x0044, 0x04, 4, 0x91), Some((433_333, 1)));
        assert_eq!(vht(0x0044, 0x04, 4, 0x92), Some((866_667, 2)));
        // 20 MHz MCS 8, 1 SS, long GI = 78 Mbit/s.
        assert_eq!(vht(0x0044, 0x00, 0, 0x81), Some((78_000, 1)));
        assert_eq!(vht(0x0000, 0x00, 0, 0x81), None); // bandwidth not known
        assert_eq!(vht(0x0044, 0x00, 0, 0x80), None); // no stream for user 0
    }

    #[test]
    fn he_table_values() {
        // 802.11ax Table 27-9x: 80 MHz MCS 11, 1 SS, 0.8 µs GI = 600.5 Mbit/s;
        // 20 MHz MCS 7, 2 SS, 0.8 µs = 172.1 Mbit/s.
        let he80 = [0x4020, 0x0002, 11 << 8, 0, 0x0002, 1];
        assert_eq!(he(&he80), Some((600_490, 1)));
        let he20 = [0x4020, 0x0002, 7 << 8, 0, 0x0000, 2];
        assert_eq!(he(&he20), Some((172_059, 2)));
        assert_eq!(he(&[0, 0, 0, 0, 0, 1]), None);
    }
}
