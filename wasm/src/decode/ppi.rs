//! Per-Packet Information (LINKTYPE_PPI 192; CACE "PPI Header Format" 1.0.10, as
//! Wireshark's packet-ppi.c reads it): a little-endian header — version (0), flags,
//! length, DLT of the frame that follows — then TLV fields (type u16, length u16,
//! data). The frame starts `length` bytes in. Field 2, "802.11-Common", carries the
//! radio facts: TSF (8), flags (2), rate in 500 kbit/s (2), channel MHz (2), channel
//! flags (2), FHSS (2), dBm signal (1), dBm noise (1).

use super::radiotap::Radio;
use super::WarningKind;

const FIELD_80211_COMMON: u16 = 2;

/// A PPI header: where the frame starts, its link type, and the radio fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ppi {
    pub len: usize,
    pub dlt: u32,
    pub radio: Option<Radio>,
    /// The 802.11-Common flags say "FCS invalid" (0x0004) or "PHY error" (0x0008): the
    /// frame failed its check at the radio (Wireshark's packet-ppi.c DOT11_FLAG_*).
    pub failed_check: bool,
}

pub fn parse(b: &[u8]) -> Result<Ppi, WarningKind> {
    let h = b.get(..8).ok_or(WarningKind::TruncatedHeaders)?;
    if h[0] != 0 {
        return Err(WarningKind::MalformedPacket);
    }
    let len = usize::from(u16::from_le_bytes([h[2], h[3]]));
    if len < 8 {
        return Err(WarningKind::MalformedPacket);
    }
    let hdr = b.get(..len).ok_or(WarningKind::TruncatedHeaders)?;
    let dlt = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    let mut radio = None;
    let mut failed_check = false;
    let mut at = 8;
    while let Some(f) = hdr.get(at..at + 4) {
        let (kind, flen) = (u16::from_le_bytes([f[0], f[1]]), usize::from(u16::from_le_bytes([f[2], f[3]])));
        let data = hdr.get(at + 4..at + 4 + flen).ok_or(WarningKind::MalformedPacket)?;
        if kind == FIELD_80211_COMMON && flen >= 20 {
            failed_check = u16::from_le_bytes([data[8], data[9]]) & 0x000c != 0;
            let rate = u16::from_le_bytes([data[10], data[11]]);
            radio = Some(Radio {
                rate_kbps: u32::from(rate) * 500,
                channel_mhz: u16::from_le_bytes([data[12], data[13]]),
                // -128 is 0x80, which packet-ppi.c also shows as a real value; 0 means unset.
                signal_dbm: (data[18] != 0).then_some(data[18] as i8),
                ..Radio::default()
            });
        }
        at += 4 + flen;
    }
    Ok(Ppi { len, dlt, radio, failed_check })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A PPI header with one 802.11-Common field: 54 Mbit/s, 5180 MHz, -52 dBm.
    pub fn header(dlt: u32) -> Vec<u8> {
        let mut b = vec![0, 0, 32, 0];
        b.extend_from_slice(&dlt.to_le_bytes());
        b.extend_from_slice(&[2, 0, 20, 0]);
        let mut common = [0u8; 20];
        common[10..12].copy_from_slice(&108u16.to_le_bytes());
        common[12..14].copy_from_slice(&5180u16.to_le_bytes());
        common[18] = (-52i8) as u8;
        b.extend_from_slice(&common);
        b
    }

    #[test]
    fn common_field() {
        let p = parse(&header(105)).unwrap();
        assert_eq!((p.len, p.dlt, p.failed_check), (32, 105, false));
        let mut failed = header(105);
        failed[20] = 0x04; // 802.11-Common flags (header 8 + field header 4 + TSF 8): FCS invalid
        assert!(parse(&failed).unwrap().failed_check);
        assert_eq!(p.radio, Some(Radio { rate_kbps: 54_000, nss: 0, signal_dbm: Some(-52), channel_mhz: 5180, retry: false }));
        let mut bad = header(105);
        bad[10] = 200; // field longer than the header
        assert_eq!(parse(&bad), Err(WarningKind::MalformedPacket));
        assert_eq!(parse(&header(1)[..20]), Err(WarningKind::TruncatedHeaders));
    }
}
