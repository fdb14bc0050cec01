//! Which connection a source address's previous datagram was on: what tells a host-wide
//! Identification counter's skip (another connection took the numbers) from a loss
//! (see the parent module's doc and `Arrival::source_last`).

/// What `SourceIds` knows of a source address's datagram before the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceLast {
    /// It was on the same connection.
    Same,
    /// It was on another connection, with this number.
    Other(u16),
    /// Not known: the slot held another address (a collision) or none, or the other
    /// connection's datagram carried 0 (outside any numbering, or a shared counter's own 0).
    Unknown,
}

/// The last IPv4 Identification each source address used, and on which connection:
/// where one counter numbers a host's datagrams of every connection (a switch's
/// OpenFlow channels in tcpdump's of10_s4810.pcap, TTL 64, two connections taking
/// turns), a connection that pauses while another sends skips numbers without a loss.
/// Direct-mapped on the address (`SOURCE_SLOTS`, 48 KiB); a collision forgets, and
/// then nothing is known (`SourceLast::Unknown`: not a re-send).
pub(crate) struct SourceIds {
    /// (address, number, connection index).
    slots: Box<[(u32, u16, u32)]>,
}

/// Slots of `SourceIds`.
const SOURCE_SLOTS: usize = 4096;

impl Default for SourceIds {
    fn default() -> Self {
        SourceIds { slots: vec![(0, 0, u32::MAX); SOURCE_SLOTS].into_boxed_slice() }
    }
}

impl SourceIds {
    /// Notes datagram `id` of IPv4 source `addr` on connection `conn`; returns what is
    /// known of that source's datagram before it.
    pub fn note(&mut self, addr: u32, id: u16, conn: u32) -> SourceLast {
        // Fibonacci hashing: the top 12 bits of the product spread neighbouring addresses.
        let slot = &mut self.slots[(addr.wrapping_mul(0x9E37_79B1) >> 20) as usize % SOURCE_SLOTS];
        let before = match *slot {
            (a, _, c) if a != addr || c == u32::MAX => SourceLast::Unknown,
            (_, _, c) if c == conn => SourceLast::Same,
            (_, 0, _) => SourceLast::Unknown,
            (_, n, _) => SourceLast::Other(n),
        };
        *slot = (addr, id, conn);
        before
    }
}
