//! Loss with the round trip flat (review X, lycdl; analysis/verdict/diagnosis/
//! policer_words.rs): the signature of a policer or random loss, not of a queue's
//! overflow (Flach et al., SIGCOMM 2016).
use crate::common;
use tcpscope_core::synth::*;

/// A sender-side capture of a bulk upload over a 20-ms path that never queues: 30
/// rounds of 10 × 1,448 B, the receiver ACKing each segment exactly 20 ms after it was
/// sent, except the 3rd of each round, lost: the 7 segments after it are answered by
/// duplicate ACKs with SACK, the sender re-sends it 10 µs after the third, and its ACK
/// comes 20 ms later, when the next round starts. 30 of 330 segments (9.1 %) re-sent,
/// every round trip 20 ms: flat.
fn policed() -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:5001");
    f.handshake(0, 20_000, Opts::new().mss(1448).sack_perm(), Opts::new().mss(1448).sack_perm());
    let (mut t, mut base) = (21_000i64, 1001u32);
    for _ in 0..30 {
        for k in 0..10u32 {
            f.push(C2S, t + 10 * k as i64).payload(1448);
        }
        let lost = base + 2 * 1448;
        f.push(S2C, t + 20_000).ack(base + 1448);
        f.push(S2C, t + 20_010).ack(lost);
        for k in 3..10u32 {
            f.push(S2C, t + 20_000 + 10 * k as i64).ack(lost).opts(Opts::new().sack(&[(lost + 1448, base + (k + 1) * 1448)]));
        }
        let resent = t + 20_000 + 10 * 5 + 10;
        f.push(C2S, resent).seq(lost).payload(1448);
        f.push(S2C, resent + 20_000).ack(base + 10 * 1448);
        base += 10 * 1448;
        t = resent + 20_010;
    }
    f
}

#[test]
fn loss_with_a_flat_round_trip_is_named() {
    let c = common::analyze_flow(&policed());
    let t = &c.diagnosis.text;
    assert!(t.starts_with("Loss limited this flow"), "{t}");
    assert!(t.contains("while 9.1 % was re-sent: loss with no queue building before it, the signature of a rate policer"), "{t}");
}

/// lyc0930 Wireshark-Labs DNS_1.pcapng connection 16 (review X, lycdl): 29.4 % re-sent,
/// and the data's round trips read 157.23–157.45 ms — but this is a receiver-side
/// capture of a Windows client without TCP timestamps (SYN frame 35: MSS, WS, SACK
/// only), so each is the client's ACK delay plus the handshake's far part
/// (`rtt.followedSamples` 0): flat by construction, not by measure. Not said.
#[test]
fn lycdl_flat_by_construction_is_not_called_a_policer() {
    let Some(c) = common::corpus_connection("lyc0930__Wireshark-Labs__2-HTTP&DNS_DNS_1.pcapng", 16) else { return };
    assert!(c.diagnosis.text.starts_with("Loss limited this flow: 29.4 %"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("policer"), "{}", c.diagnosis.text);
}
