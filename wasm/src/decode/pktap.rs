//! Apple PKTAP (LINKTYPE_PKTAP 258; DLT_USER2 = 149 as macOS 10.9 wrote it): a header
//! that macOS `tcpdump -i pktap` / `-k` puts before each frame, naming the interface,
//! the frame's own link type and the process behind the packet.
//!
//! Layout, all little-endian (Wireshark epan/dissectors/packet-pktap.c; libpcap
//! pcap/pktap.h), 108 bytes at least; `length` lets Apple extend it, and the frame
//! starts `length` bytes in:
//!
//! | off | size | field                              |
//! |-----|------|------------------------------------|
//! | 0   | 4    | length of this header              |
//! | 4   | 4    | record type (1 = a packet follows) |
//! | 8   | 4    | DLT of the frame that follows      |
//! | 12  | 24   | interface name, NUL-terminated     |
//! | 36  | 4    | flags                              |
//! | 40  | 4    | protocol family                    |
//! | 44  | 4    | link-layer header length           |
//! | 48  | 4    | link-layer trailer length          |
//! | 52  | 4    | process id (-1: none)              |
//! | 56  | 20   | command name, NUL-terminated       |
//! | 76  | 4    | service class                      |
//! | 80  | 2+2  | interface type, unit               |
//! | 84  | 4    | effective process id               |
//! | 88  | 20   | effective command name             |

use super::WarningKind;

/// Minimum header length (packet-pktap.c MIN_PKTAP_HDR_LEN).
pub const MIN_HEADER: usize = 108;
/// Record type of a header followed by a packet (PKT_REC_PACKET).
const REC_PACKET: u32 = 1;

/// A validated PKTAP header: at least 108 bytes, record type "packet", the whole
/// header captured.
#[derive(Clone, Copy, Debug)]
pub struct PktapHeader<'a>(&'a [u8]);

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// A fixed-size NUL-terminated name field.
fn name(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
    &field[..end]
}

impl<'a> PktapHeader<'a> {
    pub fn parse(b: &'a [u8]) -> Result<Self, WarningKind> {
        let fixed = b.get(..8).ok_or(WarningKind::TruncatedHeaders)?;
        let len = le32(fixed, 0) as usize;
        if len < MIN_HEADER {
            return Err(WarningKind::MalformedPacket);
        }
        if le32(fixed, 4) != REC_PACKET {
            return Err(WarningKind::NotIp); // a record with no packet after it
        }
        let h = b.get(..len).ok_or(WarningKind::TruncatedHeaders)?;
        Ok(PktapHeader(h))
    }
    /// Where the frame starts.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The frame's link type, as a DLT (mapped to a LINKTYPE by the caller).
    pub fn dlt(&self) -> u32 {
        le32(self.0, 8)
    }
    pub fn interface(&self) -> &'a [u8] {
        name(&self.0[12..36])
    }
    pub fn pid(&self) -> u32 {
        le32(self.0, 52)
    }
    pub fn command(&self) -> &'a [u8] {
        name(&self.0[56..76])
    }
    pub fn effective_pid(&self) -> u32 {
        le32(self.0, 84)
    }
    pub fn effective_command(&self) -> &'a [u8] {
        name(&self.0[88..108])
    }
    /// The process behind the packet, if the kernel named one: pid −1 (and, for
    /// packets no socket claimed, pid 0 with no name) means none.
    pub fn process(&self) -> Option<(u32, &'a [u8])> {
        let (pid, cmd) = (self.pid(), self.command());
        (pid != u32::MAX && !(pid == 0 && cmd.is_empty())).then_some((pid, cmd))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A PKTAP header for an Ethernet frame on en0 from `cmd` (pid `pid`).
    pub fn header(dlt: u32, pid: u32, cmd: &str) -> Vec<u8> {
        let mut h = vec![0u8; MIN_HEADER];
        h[0..4].copy_from_slice(&(MIN_HEADER as u32).to_le_bytes());
        h[4..8].copy_from_slice(&1u32.to_le_bytes());
        h[8..12].copy_from_slice(&dlt.to_le_bytes());
        h[12..15].copy_from_slice(b"en0");
        h[52..56].copy_from_slice(&pid.to_le_bytes());
        h[56..56 + cmd.len()].copy_from_slice(cmd.as_bytes());
        h[84..88].copy_from_slice(&pid.to_le_bytes());
        h[88..88 + cmd.len()].copy_from_slice(cmd.as_bytes());
        h
    }

    #[test]
    fn fields() {
        let b = header(1, 512, "Safari");
        let h = PktapHeader::parse(&b).unwrap();
        assert_eq!((h.len(), h.dlt(), h.interface()), (108, 1, &b"en0"[..]));
        assert_eq!(h.process(), Some((512, &b"Safari"[..])));
        assert_eq!((h.effective_pid(), h.effective_command()), (512, &b"Safari"[..]));
        assert_eq!(PktapHeader::parse(&header(1, u32::MAX, "")).unwrap().process(), None);
        assert_eq!(PktapHeader::parse(&header(1, 0, "")).unwrap().process(), None);
    }

    #[test]
    fn rejects_short_or_empty_records() {
        let b = header(1, 1, "x");
        assert_eq!(PktapHeader::parse(&b[..50]).unwrap_err(), WarningKind::TruncatedHeaders);
        let mut short = b.clone();
        short[0] = 40;
        assert_eq!(PktapHeader::parse(&short).unwrap_err(), WarningKind::MalformedPacket);
        let mut none = b;
        none[4] = 0;
        assert_eq!(PktapHeader::parse(&none).unwrap_err(), WarningKind::NotIp);
    }
}
