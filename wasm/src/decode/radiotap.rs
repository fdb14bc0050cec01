//! Radiotap headers (<https://www.radiotap.org>, "Defined fields"): the length, the
//! Flags field (whose 0x20 bit pads the 802.11 header), and the radio facts of the
//! frame: PHY rate (legacy Rate, HT MCS, VHT, HE), spatial streams, signal and channel.
//!
//! Fields are little-endian, each aligned to its natural size from the start of the
//! header, in bit order; only the first present word's fields are read (later words
//! describe vendor namespaces and extra antennas, which come after them).

use super::phy_rate;
use super::WarningKind;

/// What the radio said about one frame; zero / None = not recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Radio {
    /// PHY data rate, kbit/s (radiotap Rate × 500, or computed from MCS/VHT/HE).
    pub rate_kbps: u32,
    /// Spatial streams (HT: from the MCS index; VHT/HE: NSS); 0 = not known.
    pub nss: u8,
    /// Antenna signal, dBm.
    pub signal_dbm: Option<i8>,
    /// Channel centre frequency, MHz.
    pub channel_mhz: u16,
    /// 802.11 Frame Control Retry bit (IEEE 802.11-2020 §9.2.4.1.1), filled by wifi.rs.
    pub retry: bool,
}

/// The parts of a radiotap header the decoder uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Radiotap {
    /// Header length: the 802.11 frame starts here.
    pub len: usize,
    /// Flags field (bit 1), if present.
    pub flags: Option<u8>,
    pub radio: Radio,
}

/// (alignment, size) of fields 0..=27 (radiotap.org "Defined fields").
const FIELDS: [(usize, usize); 28] = [
    (8, 8),  // 0 TSFT
    (1, 1),  // 1 Flags
    (1, 1),  // 2 Rate
    (2, 4),  // 3 Channel
    (1, 2),  // 4 FHSS
    (1, 1),  // 5 dBm antenna signal
    (1, 1),  // 6 dBm antenna noise
    (2, 2),  // 7 Lock quality
    (2, 2),  // 8 TX attenuation
    (2, 2),  // 9 dB TX attenuation
    (1, 1),  // 10 dBm TX power
    (1, 1),  // 11 Antenna
    (1, 1),  // 12 dB antenna signal
    (1, 1),  // 13 dB antenna noise
    (2, 2),  // 14 RX flags
    (2, 2),  // 15 TX flags
    (1, 1),  // 16 RTS retries
    (1, 1),  // 17 data retries
    (4, 8),  // 18 XChannel
    (1, 3),  // 19 MCS
    (4, 8),  // 20 A-MPDU status
    (2, 12), // 21 VHT
    (8, 12), // 22 timestamp
    (2, 12), // 23 HE
    (2, 12), // 24 HE-MU
    (2, 6),  // 25 HE-MU-other-user
    (1, 1),  // 26 0-length PSDU
    (2, 4),  // 27 L-SIG
];

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// Parse the radiotap header at the start of `b`. A field that runs past the header
/// is `MalformedPacket`; a header longer than the capture is `TruncatedHeaders`.
pub fn parse(b: &[u8]) -> Result<Radiotap, WarningKind> {
    let h = b.get(..8).ok_or(WarningKind::TruncatedHeaders)?;
    if h[0] != 0 {
        return Err(WarningKind::MalformedPacket);
    }
    let len = usize::from(le16(h, 2));
    if len < 8 {
        return Err(WarningKind::MalformedPacket);
    }
    let hdr = b.get(..len).ok_or(WarningKind::TruncatedHeaders)?;
    let present = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    // Extended present bitmaps: bit 31 of each word says another word follows.
    let mut at = 8usize;
    let mut word = present;
    while word & 0x8000_0000 != 0 {
        let w = hdr.get(at..at + 4).ok_or(WarningKind::MalformedPacket)?;
        word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        at += 4;
    }
    let mut out = Radiotap { len, flags: None, radio: Radio::default() };
    for (bit, &(align, size)) in FIELDS.iter().enumerate() {
        if present & (1 << bit) == 0 {
            continue;
        }
        at = at.div_ceil(align) * align;
        let f = hdr.get(at..at + size).ok_or(WarningKind::MalformedPacket)?;
        at += size;
        let r = &mut out.radio;
        match bit {
            1 => out.flags = Some(f[0]),
            2 if f[0] != 0 => r.rate_kbps = u32::from(f[0]) * 500,
            3 => r.channel_mhz = le16(f, 0),
            5 => r.signal_dbm = Some(f[0] as i8),
            18 => r.channel_mhz = le16(f, 4),
            19 => set(r, phy_rate::ht(f[0], f[1], f[2])),
            21 => set(r, phy_rate::vht(le16(f, 0), f[2], f[3], f[4])),
            23 => {
                let d: [u16; 6] = std::array::from_fn(|i| le16(f, 2 * i));
                set(r, phy_rate::he(&d));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A rate from an MCS-type field replaces the legacy Rate (absent on HT/VHT/HE frames).
fn set(r: &mut Radio, rate: Option<(u32, u8)>) {
    if let Some((kbps, nss)) = rate {
        r.rate_kbps = kbps;
        r.nss = nss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsft_flags_rate_channel_signal() {
        // present: TSFT, Flags, Rate, Channel, dBm signal = bits 0,1,2,3,5 = 0x2f.
        let mut b = vec![0, 0, 0, 0, 0x2f, 0, 0, 0];
        b.extend_from_slice(&[0; 8]); // TSFT at 8
        b.push(0x10); // Flags at 16 (FCS at end)
        b.push(108); // Rate 54 Mbit/s
        b.extend_from_slice(&[0x6c, 0x09, 0xa0, 0x00]); // channel 2412 MHz at 18
        b.push(0xc4); // -60 dBm at 22
        let n = b.len() as u16;
        b[2..4].copy_from_slice(&n.to_le_bytes());
        let r = parse(&b).unwrap();
        assert_eq!((r.len, r.flags), (23, Some(0x10)));
        assert_eq!(r.radio, Radio { rate_kbps: 54_000, nss: 0, signal_dbm: Some(-60), channel_mhz: 2412, retry: false });
    }

    #[test]
    fn mcs_field_after_padding() {
        // present: Flags, MCS (bits 1, 19); MCS known BW|MCS|GI, flags 40 MHz + SGI, index 15.
        let b = [0, 0, 12, 0, 0x02, 0, 0x08, 0, 0x00, 0x07, 0x05, 15];
        let r = parse(&b).unwrap();
        // 2 streams × 150 Mbit/s (MCS 7, 40 MHz, short GI) = 300 Mbit/s.
        assert_eq!((r.radio.rate_kbps, r.radio.nss), (300_000, 2));
    }

    #[test]
    fn malformed_and_truncated() {
        assert_eq!(parse(&[0, 0, 8, 0]), Err(WarningKind::TruncatedHeaders));
        assert_eq!(parse(&[1, 0, 8, 0, 0, 0, 0, 0]), Err(WarningKind::MalformedPacket));
        // Flags announced but the header is only 8 bytes long.
        assert_eq!(parse(&[0, 0, 8, 0, 2, 0, 0, 0, 0x10]), Err(WarningKind::MalformedPacket));
        assert_eq!(parse(&[0, 0, 20, 0, 0, 0, 0, 0]), Err(WarningKind::TruncatedHeaders));
    }
}
