//! Issue 39 item 8 ("causes cross-checked"), review AF class
//! C-BACK-TO-BACK-DUPLICATE-AS-RECOVERY (loss/back_to_back.rs; docs/ANALYSIS.md
//! `direction.backToBackDuplicates`): a segment sent twice within microseconds, before any
//! feedback or timer could ask for it, is no fast retransmission and no tail loss probe.
//! Corpus captures: each test returns early without `TCPSCOPE_CORPUS`.

use crate::common;

/// [retransmissions, timeouts, probes, fast, slow start, back to back, spurious] of
/// direction `d`.
fn kinds(name: &str, id: u32, d: usize) -> Option<[u64; 7]> {
    let c = common::corpus_connection(name, id)?;
    let x = &c.directions[d];
    Some([x.retransmissions, x.rto_events, x.tail_loss_probes, x.fast_retransmissions, x.slow_start_retransmissions, x.back_to_back_duplicates, x.spurious_retransmissions])
}

#[test]
fn response_tails_sent_twice_back_to_back_are_no_recovery() {
    // moudie lab8 (2) conn 13, Akamai → client (capture at the client, 3.3 ms path):
    // f1508/1509, f2044/2045, f2199/2200 are a response's last segment sent twice 2 µs
    // apart (IP IDs 0x6724/0x6725 …: two datagrams), no ACK between, each copy D-SACKed
    // (f1510, f2046, f2201): 3 back-to-back duplicates. f831 re-sends f827's tail 6.5 ms
    // (≈ 2 RTT) after it, after the client's ACK of it (f830) was captured: not sent
    // twice back to back, and its kind is another rule's (still fast: the sender lag puts
    // f830 within a round trip of it). All 4 D-SACKed. Before: fast 2, probes 2.
    let Some(k) = kinds("moudie__wireshark-labs-IT-520__lab8 (2).pcapng", 13, 1) else { return };
    assert_eq!(k, [4, 0, 0, 1, 0, 3, 4]);
}
