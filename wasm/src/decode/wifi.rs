//! IEEE 802.11 frames, optionally behind a radiotap header (LINKTYPE_IEEE802_11 = 105,
//! LINKTYPE_IEEE802_11_RADIOTAP = 127; radiotap: <https://www.radiotap.org>).
//!
//! Only data frames that carry an LLC/SNAP-encapsulated IP packet are decoded
//! (IEEE 802.11-2020 §9.2.4 MAC header, §9.3.2 data frames). Management, control,
//! and null-data frames are `NotIp`; protected (encrypted) data frames `EncryptedFrame`.

use super::ethertype::{snap, Located};
use super::WarningKind;

/// (Retry flag, sequence number) of the 802.11 data frame whose MAC header starts at
/// `off`, for recognising MAC-layer retransmissions (the same MPDU sent again by the
/// radio, IEEE 802.11-2020 §10.3.2.14: Retry = 1, same sequence number). None when the
/// header is not there; only called on frames that already decoded as IP.
pub fn mac_identity(b: &[u8], off: usize) -> Option<(bool, u16)> {
    let fc_flags = *b.get(off + 1)?;
    let seq_ctl = u16::from_le_bytes([*b.get(off + 22)?, *b.get(off + 23)?]);
    Some((fc_flags & 0x08 != 0, seq_ctl >> 4))
}

/// A bare 802.11 frame starting at `off`: where its (first) IP packet is, and, for an
/// A-MSDU, how many subframes follow the first (not read: packet.rs `decode_record`).
/// `pad_header`: the radiotap Flags 0x20 bit, "frame has padding between the 802.11
/// header and the payload (to a 32-bit boundary)".
pub fn ieee80211(b: &[u8], off: usize, pad_header: bool) -> Result<(Located, u32), WarningKind> {
    let fc = b.get(off..off + 2).ok_or(WarningKind::TruncatedHeaders)?;
    let (ftype, subtype, flags) = ((fc[0] >> 2) & 3, fc[0] >> 4, fc[1]);
    // Type 2 = data; subtypes with bit 2 set carry no frame body (Null, QoS Null, ...).
    if ftype != 2 || subtype & 0x4 != 0 {
        return Err(WarningKind::NotIp);
    }
    // Protected frame: the body is encrypted (WEP, TKIP, CCMP, GCMP). Said apart from
    // non-IP frames: on an encrypted network, most monitor-mode captures, it is why no
    // TCP shows (aircrack-ng's wpa-psk-linksys.cap read "587 non-IP packets (ARP, LLDP,
    // ...)", 59 of them encrypted data frames holding TCP).
    if flags & 0x40 != 0 {
        return Err(WarningKind::EncryptedFrame);
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
        // A-MSDU (IEEE 802.11-2020 §9.3.2.2.2): subframes of DA, SA, length, then the
        // MSDU (LLC/SNAP + IP), each padded to 4 bytes. The first is decoded; the rest
        // are counted (packet.rs `decode_record`).
        let (first, mut next) = subframe(b, body).ok_or(WarningKind::TruncatedHeaders)?;
        let first = first?;
        let mut unread = 0;
        while let Some((_, after)) = next.and_then(|at| subframe(b, at)) {
            unread += 1;
            next = after;
        }
        return Ok((first, unread));
    }
    Ok((snap(b, body)?, 0))
}

/// Subframe header: destination, source, MSDU length (big-endian).
const SUBFRAME_HEADER: usize = 14;

/// The A-MSDU subframe whose header starts at `at`: its IP packet (bounded by the
/// subframe's length), and where the next subframe starts, if the frame holds one.
/// None when no subframe header is there. Each step moves ≥ 16 bytes, so a frame of
/// n bytes has at most n / 16 subframes (hostile input stays bounded).
fn subframe(b: &[u8], at: usize) -> Option<(Result<Located, WarningKind>, Option<usize>)> {
    let h = b.get(at..at + SUBFRAME_HEADER)?;
    let len = usize::from(u16::from_be_bytes([h[12], h[13]]));
    let msdu = at + SUBFRAME_HEADER;
    // The subframe's MSDU bounds the IP packet, from wherever SNAP put its header (after
    // a VLAN tag, say), and never beyond what an inner layer (PPPoE) already bounds.
    let ip = snap(b, msdu).map(|l| {
        let room = (msdu + len).saturating_sub(l.offset) as u32;
        Located { max_len: Some(l.max_len.map_or(room, |m| m.min(room))), ..l }
    });
    let next = at + (SUBFRAME_HEADER + len).div_ceil(4) * 4;
    Some((ip, (len > 0 && next + SUBFRAME_HEADER <= b.len()).then_some(next)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::decode::ethertype::Net;

    fn ip4(off: usize) -> Result<Located, WarningKind> {
        Ok(Located::at(Net::Ipv4, off))
    }

    /// QoS data, from-DS, with an LLC/SNAP IPv4 payload start.
    pub fn qos_data(flags: u8) -> Vec<u8> {
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
        assert_eq!(ieee80211(&qos_data(0x02), 0, false).map(|f| f.0), ip4(34));
        assert_eq!(ieee80211(&qos_data(0x82), 0, false).map(|f| f.0), ip4(38));
    }

    #[test]
    fn non_data_protected_and_fragments() {
        let mut beacon = qos_data(0);
        beacon[0] = 0x80; // management, beacon
        assert_eq!(ieee80211(&beacon, 0, false).map(|f| f.0), Err(WarningKind::NotIp));
        assert_eq!(ieee80211(&qos_data(0x42), 0, false).map(|f| f.0), Err(WarningKind::EncryptedFrame));
        assert_eq!(ieee80211(&qos_data(0x04), 0, false).map(|f| f.0), Err(WarningKind::IpFragment));
        assert_eq!(ieee80211(&qos_data(0)[..25], 0, false).map(|f| f.0), Err(WarningKind::TruncatedHeaders));
    }

    #[test]
    fn mac_identity_reads_retry_and_sequence() {
        // Retry (0x08) + from-DS; sequence control 0x1230 → sequence number 0x123.
        let mut f = qos_data(0x0a);
        f[22] = 0x30;
        f[23] = 0x12;
        assert_eq!(mac_identity(&f, 0), Some((true, 0x123)));
        let mut rt = vec![0, 0, 8, 0, 0, 0, 0, 0];
        rt.extend_from_slice(&qos_data(0x02));
        assert_eq!(mac_identity(&rt, 8), Some((false, 1)));
        assert_eq!(mac_identity(&rt[..20], 8), None);
    }
}
