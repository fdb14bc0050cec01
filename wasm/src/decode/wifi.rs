//! IEEE 802.11 frames, optionally behind a radiotap header (LINKTYPE_IEEE802_11 = 105,
//! LINKTYPE_IEEE802_11_RADIOTAP = 127; radiotap: <https://www.radiotap.org>).
//!
//! Only data frames that carry an LLC/SNAP-encapsulated IP packet are decoded
//! (IEEE 802.11-2020 §9.2.4 MAC header, §9.3.2 data frames). Management, control,
//! null-data and protected (encrypted) frames are `NotIp`.

use super::link::{snap, Net};
use super::WarningKind;

/// Radiotap header: version 0, pad, little-endian length, present bitmaps.
/// Reads the Flags field when present because flag 0x20 says the 802.11 header is
/// followed by padding to a 4-byte boundary.
pub fn radiotap(b: &[u8]) -> Result<(Net, usize), WarningKind> {
    let h = b.get(..8).ok_or(WarningKind::TruncatedHeaders)?;
    if h[0] != 0 {
        return Err(WarningKind::MalformedPacket);
    }
    let len = usize::from(u16::from_le_bytes([h[2], h[3]]));
    if len < 8 {
        return Err(WarningKind::MalformedPacket);
    }
    if b.len() < len {
        return Err(WarningKind::TruncatedHeaders);
    }
    let present = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    // Extended present bitmaps: bit 31 of each word says another word follows.
    let mut fields = 8usize;
    let mut word = present;
    while word & 0x8000_0000 != 0 {
        let w = b.get(fields..fields + 4).ok_or(WarningKind::MalformedPacket)?;
        word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        fields += 4;
    }
    let mut pad_header = false;
    if present & 0b10 != 0 {
        // Field 0 (TSFT, 8 bytes, 8-aligned) comes before field 1 (Flags, 1 byte).
        let mut at = fields;
        if present & 1 != 0 {
            at = at.div_ceil(8) * 8 + 8;
        }
        let flags = *b.get(at).filter(|_| at < len).ok_or(WarningKind::MalformedPacket)?;
        pad_header = flags & 0x20 != 0;
    }
    ieee80211_inner(b, len, pad_header)
}

/// (Retry flag, sequence number) of the 802.11 data frame of a LINKTYPE 105 / 127
/// frame, for recognising MAC-layer retransmissions (the same MPDU sent again by the
/// radio, IEEE 802.11-2020 §10.3.2.14: Retry = 1, same sequence number). None when the
/// header is not there; only called on frames that already decoded as IP.
pub fn mac_identity(lt: u32, b: &[u8]) -> Option<(bool, u16)> {
    let off = match lt {
        105 => 0,
        127 => usize::from(u16::from_le_bytes([*b.get(2)?, *b.get(3)?])),
        _ => return None,
    };
    let fc_flags = *b.get(off + 1)?;
    let seq_ctl = u16::from_le_bytes([*b.get(off + 22)?, *b.get(off + 23)?]);
    Some((fc_flags & 0x08 != 0, seq_ctl >> 4))
}

/// A bare 802.11 frame starting at `off`.
pub fn ieee80211(b: &[u8], off: usize) -> Result<(Net, usize), WarningKind> {
    ieee80211_inner(b, off, false)
}

fn ieee80211_inner(b: &[u8], off: usize, pad_header: bool) -> Result<(Net, usize), WarningKind> {
    let fc = b.get(off..off + 2).ok_or(WarningKind::TruncatedHeaders)?;
    let (ftype, subtype, flags) = ((fc[0] >> 2) & 3, fc[0] >> 4, fc[1]);
    // Type 2 = data; subtypes with bit 2 set carry no frame body (Null, QoS Null, ...).
    if ftype != 2 || subtype & 0x4 != 0 {
        return Err(WarningKind::NotIp);
    }
    // Protected frame: the body is encrypted.
    if flags & 0x40 != 0 {
        return Err(WarningKind::NotIp);
    }
    let to_ds_from_ds = flags & 0x03 == 0x03;
    let qos = subtype & 0x8 != 0;
    // FC, duration, 3 addresses, sequence control; address 4 only in the WDS case.
    let mut hdr = 24 + if to_ds_from_ds { 6 } else { 0 };
    let mut amsdu = false;
    if qos {
        let q = b.get(off + hdr..off + hdr + 2).ok_or(WarningKind::TruncatedHeaders)?;
        amsdu = q[0] & 0x80 != 0;
        hdr += 2;
        // +HTC/Order bit on a QoS data frame: a 4-byte HT Control field follows.
        if flags & 0x80 != 0 {
            hdr += 4;
        }
    }
    let seq_ctl = b.get(off + 22..off + 24).ok_or(WarningKind::TruncatedHeaders)?;
    // MAC-level fragmentation (More Fragments flag, or fragment number ≠ 0) splits the
    // IP packet across frames; counted with IP fragments, not reassembled.
    if flags & 0x04 != 0 || seq_ctl[0] & 0x0f != 0 {
        return Err(WarningKind::IpFragment);
    }
    let mut body = off + hdr;
    if pad_header {
        body = off + hdr.div_ceil(4) * 4;
    }
    if amsdu {
        // A-MSDU: only the first subframe is decoded (DA, SA, length; then LLC/SNAP).
        body += 14;
    }
    snap(b, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// QoS data, from-DS, with an LLC/SNAP IPv4 payload start.
    fn qos_data(flags: u8) -> Vec<u8> {
        let mut b = vec![0x88, flags, 0, 0];
        b.extend_from_slice(&[0u8; 18]); // 3 addresses
        b.extend_from_slice(&[0x10, 0x00]); // sequence control, fragment 0
        b.extend_from_slice(&[0x00, 0x00]); // QoS control
        if flags & 0x80 != 0 {
            b.extend_from_slice(&[0; 4]); // HT control
        }
        b.extend_from_slice(&[0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00, 0x45]);
        b
    }

    #[test]
    fn qos_data_with_and_without_ht_control() {
        assert_eq!(ieee80211(&qos_data(0x02), 0), Ok((Net::Ipv4, 34)));
        assert_eq!(ieee80211(&qos_data(0x82), 0), Ok((Net::Ipv4, 38)));
    }

    #[test]
    fn non_data_protected_and_fragments() {
        let mut beacon = qos_data(0);
        beacon[0] = 0x80; // management, beacon
        assert_eq!(ieee80211(&beacon, 0), Err(WarningKind::NotIp));
        assert_eq!(ieee80211(&qos_data(0x42), 0), Err(WarningKind::NotIp));
        assert_eq!(ieee80211(&qos_data(0x04), 0), Err(WarningKind::IpFragment));
        assert_eq!(ieee80211(&qos_data(0)[..25], 0), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn mac_identity_reads_retry_and_sequence() {
        // Retry (0x08) + from-DS; sequence control 0x1230 → sequence number 0x123.
        let mut f = qos_data(0x0a);
        f[22] = 0x30;
        f[23] = 0x12;
        assert_eq!(mac_identity(105, &f), Some((true, 0x123)));
        let mut rt = vec![0, 0, 8, 0, 0, 0, 0, 0];
        rt.extend_from_slice(&qos_data(0x02));
        assert_eq!(mac_identity(127, &rt), Some((false, 1)));
        assert_eq!(mac_identity(1, &rt), None);
        assert_eq!(mac_identity(127, &rt[..20]), None);
    }

    #[test]
    fn radiotap_with_tsft_and_flags() {
        // present = TSFT | Flags; TSFT at 8, Flags at 16, length 18 (padded).
        let mut b = vec![0, 0, 18, 0, 0x03, 0, 0, 0];
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&[0x00, 0x00]);
        let mut plain = b.clone();
        plain.extend_from_slice(&qos_data(0x01));
        assert_eq!(radiotap(&plain), Ok((Net::Ipv4, 18 + 34)));
        // Flags 0x20: header padded from 26 to 28 bytes.
        let mut data = qos_data(0x01);
        data.splice(26..26, [0u8, 0]);
        b[16] = 0x20;
        b.extend_from_slice(&data);
        assert_eq!(radiotap(&b), Ok((Net::Ipv4, 18 + 36)));
        assert_eq!(radiotap(&b[..10]), Err(WarningKind::TruncatedHeaders));
        assert_eq!(radiotap(&[1, 0, 8, 0, 0, 0, 0, 0]), Err(WarningKind::MalformedPacket));
    }
}
