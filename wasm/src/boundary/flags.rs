//! The bits of a packet row's `flags` (`PacketColumns::flags`, view answers'
//! `Markers::flags` of the sequence series): the TCP header's flags in the low 8 bits
//! (`decode::tcp_flags`), the analysis's labels above (`analysis::columns::flag_bits`).
//! The page reads them as the generated `FLAG`.

use crate::analysis::columns::flag_bits as fb;
use crate::decode::tcp_flags as tcp;

/// Every bit, by the name the page reads (`FLAG.NAME`). All 32 bits are in use: a test
/// checks each appears exactly once, so a bit added below without a name here fails it.
pub const FLAGS: [(&str, u32); 32] = [
    ("FIN", tcp::FIN as u32),
    ("SYN", tcp::SYN as u32),
    ("RST", tcp::RST as u32),
    ("PSH", tcp::PSH as u32),
    ("ACK", tcp::ACK as u32),
    ("URG", tcp::URG as u32),
    ("ECE", tcp::ECE as u32),
    ("CWR", tcp::CWR as u32),
    ("RETRANSMISSION", fb::RETRANSMISSION),
    ("FAST_RETRANSMISSION", fb::FAST_RETRANSMISSION),
    ("SPURIOUS_RETRANSMISSION", fb::SPURIOUS_RETRANSMISSION),
    ("DUPLICATE_ACK", fb::DUPLICATE_ACK),
    ("ZERO_WINDOW", fb::ZERO_WINDOW),
    ("ZERO_WINDOW_PROBE", fb::ZERO_WINDOW_PROBE),
    ("WINDOW_FULL", fb::WINDOW_FULL),
    ("KEEP_ALIVE", fb::KEEP_ALIVE),
    ("LOST_SEGMENT", fb::LOST_SEGMENT),
    ("OUT_OF_ORDER", fb::OUT_OF_ORDER),
    ("WINDOW_UPDATE", fb::WINDOW_UPDATE),
    ("ZERO_WINDOW_PROBE_ACK", fb::ZERO_WINDOW_PROBE_ACK),
    ("KEEP_ALIVE_ACK", fb::KEEP_ALIVE_ACK),
    ("ACK_LOST_SEGMENT", fb::ACK_LOST_SEGMENT),
    ("KIND_RTO", fb::KIND_RTO),
    ("KIND_TLP", fb::KIND_TLP),
    ("KIND_FAST", fb::KIND_FAST),
    ("KIND_SLOW_START", fb::KIND_SLOW_START),
    ("KIND_SPURIOUS", fb::KIND_SPURIOUS),
    ("CAPTURE_LOSS", fb::CAPTURE_LOSS),
    ("UNSEEN_BEFORE", fb::UNSEEN_BEFORE),
    ("HELD_ON_PATH", fb::HELD_ON_PATH),
    ("ACK_HELD_ON_PATH", fb::ACK_HELD_ON_PATH),
    ("ANSWERS_PEER_DATA", fb::ANSWERS_PEER_DATA),
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_bit_once() {
        let mut all = 0u32;
        for (name, bit) in super::FLAGS {
            assert_eq!(bit.count_ones(), 1, "{name}");
            assert_eq!(all & bit, 0, "{name} repeats a bit");
            all |= bit;
        }
        assert_eq!(all, u32::MAX);
    }
}
