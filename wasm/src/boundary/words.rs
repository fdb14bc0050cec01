//! The closed sets of the report and their words: stall causes, limits, episode
//! kinds, verdicts, vantages, retransmission kinds, warning kinds.
//!
//! Labels are the diagnosis panel's (web/components/DiagnosisPanel.tsx before issue
//! 40), one per value: the panel, the chart legends, the share view and the CLI all
//! read them from here.

use super::{t, Term};
use crate::analysis::{StallCause, Vantage};

/// Every stall cause (docs/ANALYSIS.md "Stalls"), in the legend's order.
pub const STALL_CAUSES: [StallCause; 9] = [
    StallCause::ZeroWindow,
    StallCause::WindowLimited,
    StallCause::RetransmissionTimeout,
    StallCause::ApplicationIdle,
    StallCause::AckWait,
    StallCause::DelayedAck,
    StallCause::Unknown,
    StallCause::LossRecovery,
    StallCause::TailLossProbe,
];

/// A stall cause's wire name (serde's kebab-case, checked by a test) and label.
pub const fn stall_cause(c: StallCause) -> Term {
    match c {
        StallCause::ZeroWindow => t("zero-window", "zero window"),
        StallCause::WindowLimited => t("window-limited", "window-limited"),
        // The retransmission timer (RFC 6298 §5); a stall a counted tail-loss probe ended
        // has its own cause below (stalls/timer_label.rs).
        StallCause::RetransmissionTimeout => t("retransmission-timeout", "retransmission timer"),
        StallCause::ApplicationIdle => t("application-idle", "application idle"),
        // The stalls legend said "waiting for ACK" until issue 40; the panel's words won.
        StallCause::AckWait => t("ack-wait", "waiting on ACKs"),
        // The stalls legend said "delayed ACK (Nagle)" until issue 40; the panel's words won.
        StallCause::DelayedAck => t("delayed-ack", "Nagle waiting for a delayed ACK"),
        StallCause::Unknown => t("unknown", "unknown"),
        // Data the receiver reported missing (SACK), re-sent where the capture did not
        // see it (stalls/reported_loss.rs).
        StallCause::LossRecovery => t("loss-recovery", "loss recovery, re-sends not captured"),
        // Ended by a tail-loss probe (RFC 8985 §7), not a timeout (stalls/timer_label.rs).
        StallCause::TailLossProbe => t("tail-loss-probe", "tail-loss probe"),
    }
}

/// Every capture point (analysis/vantage.rs).
pub const VANTAGES: [Vantage; 4] = [Vantage::Sender, Vantage::Receiver, Vantage::Middle, Vantage::Unknown];

/// A vantage's wire name and label (the panel's "where the capture was taken").
pub const fn vantage(v: Vantage) -> Term {
    match v {
        Vantage::Sender => t("sender", "Captured at the sender"),
        Vantage::Receiver => t("receiver", "Captured at the receiver"),
        Vantage::Middle => t("middle", "Captured in the middle"),
        Vantage::Unknown => t("unknown", "Capture point unknown"),
    }
}

/// What the vantage means for the RTTs read off the capture (the panel's note after
/// the label).
pub const fn vantage_note(v: Vantage) -> &'static str {
    match v {
        Vantage::Sender => "data → ACK delays are the path's round trip",
        Vantage::Receiver => "data → ACK delays here are the receiver's own ACK delay, so the path RTT adds the upstream part",
        Vantage::Middle => "the path RTT is the sum of both halves",
        Vantage::Unknown => "the capture cannot tell whether it was taken at the sender, the receiver or in between",
    }
}

/// Every headline limit (`Diagnosis::limit`; the wire names are `analysis::LIMITS`,
/// checked by a test) and the panel's headline for it.
pub const LIMITS: [Term; 12] = [
    t("receive-window", "Limited by the receive window"),
    t("zero-window", "Receiver window hit zero"),
    t("loss", "Limited by packet loss"),
    t("application", "Limited by the sending application"),
    t("stalls", "Stalls"),
    t("path", "Limited by the path (link or congestion window)"),
    // The path's latency paid once per request/response turn (diagnosis_shares.rs
    // "turns"), not its capacity: issue 39 review I class T.
    t("turns", "Limited by request/response turns (round trips)"),
    t("too-short", "Too short to judge"),
    t("one-direction", "Only one direction captured"),
    // The handshake stopped at the client's SYNs: unanswered or refused (issue 39
    // point 6, ending.rs `NotEstablished`).
    t("not-established", "Connection never established"),
    // The capture misses most of a side's data (verdict/blind_capture.rs, issue 39
    // review Q class C-BLIND-CAPTURE): no limit is named.
    t("capture-gaps", "Most of the data not captured"),
    // Too many of its packets without a usable time (capture/broken_clock.rs, review AB
    // class C-BROKEN-CLOCK-HEADLINE): no limit is named.
    t("clock-broken", "The capture's clock is broken"),
];

/// The limits named when the connection could not be weighed (too little of it, or
/// one direction unseen): no shares of its time, so the panel draws no shares bar.
pub const LIMITS_WITHOUT_SHARES: [&str; 5] = [LIMITS[7].wire, LIMITS[8].wire, LIMITS[9].wire, LIMITS[10].wire, LIMITS[11].wire];

/// Every episode kind (`Episode::kind`, analysis/diagnosis_episodes.rs and
/// diagnosis.rs) and the panel's words for it. `periodic` is written by
/// diagnosis_episodes.rs `periodic_holds` but was missing from `analysis::EPISODE_KINDS`
/// and from the panel (which showed the wire name): its label is that same word.
pub const EPISODE_KINDS: [Term; 7] = [
    t("loss", "Loss"),
    t("delay-spike", "Delay spike"),
    t("outage", "Outage"),
    t("zero-window", "Zero window"),
    t("latency", "Latency under load"),
    t("periodic", "periodic"),
    t("transfer", "Transfer"),
];

/// Every BDP verdict (`Evidence::verdict`, analysis/bdp.rs; `analysis::VERDICTS`) and
/// the calculator's sentence for it.
pub const VERDICTS: [Term; 7] = [
    t("window", "the window is the limit"),
    t("link", "the link is the limit"),
    t("loss", "packet loss is the limit, not the window or the link"),
    t("application", "the sending application is the limit, not the window or the link"),
    t("stalls", "stalls are the limit, not the window or the link"),
    t("turns", "request/response turns are the limit (a round trip each), not the window or the link"),
    t("unknown", "these numbers cannot tell what the limit is"),
];

/// A retransmission kind (analysis/retrans_kinds.rs, docs/ANALYSIS.md "Retransmission
/// kinds"): the packet flag that marks it, its name (the time-sequence chart's class
/// `tcps-s-retx-<wire>`) and the legend's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetransmissionKind {
    pub term: Term,
    pub flag: u32,
}

pub const RETRANSMISSION_KINDS: [RetransmissionKind; 5] = {
    use crate::analysis::columns::flag_bits as fb;
    [
        RetransmissionKind { term: t("rto", "timeout"), flag: fb::KIND_RTO },
        RetransmissionKind { term: t("tlp", "tail loss probe"), flag: fb::KIND_TLP },
        RetransmissionKind { term: t("fast", "fast / SACK recovery"), flag: fb::KIND_FAST },
        RetransmissionKind { term: t("slow-start", "slow start after a timeout"), flag: fb::KIND_SLOW_START },
        RetransmissionKind { term: t("spurious", "needless (spurious, underlined)"), flag: fb::KIND_SPURIOUS },
    ]
};

/// Where a stall happened, seen from both ends (twin/report.rs `Place`): the merged
/// view's panel and `analyze --other-end` name each placed stall with these words.
pub const PLACES: [Term; 4] = [
    t("sender-host", "in the sender's host"),
    t("network", "in the network"),
    t("receiver-host", "in the receiver's host"),
    t("unknown", "not placed"),
];

/// How a connection was found in both captures (twin/report.rs `MatchedBy`).
pub const MATCHED_BY: [Term; 4] = [
    t("four-tuple", "same addresses and ports"),
    t("isn", "same initial sequence numbers (addresses rewritten)"),
    t("timestamps", "same segments and TCP timestamps (addresses rewritten)"),
    t("segments", "same sequence and acknowledgment numbers (addresses rewritten)"),
];

/// Where the page tells each warning kind: decided with the report's totals (report.rs).
pub use crate::report::{WarningPlace, WARNING_KINDS};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::wire_of;

    #[test]
    fn enum_wire_names_are_serdes() {
        for c in STALL_CAUSES {
            assert_eq!(wire_of(&c), stall_cause(c).wire);
        }
        for v in VANTAGES {
            assert_eq!(wire_of(&v), vantage(v).wire);
        }
        use crate::twin::{MatchedBy as M, Place as P};
        for (p, term) in [P::SenderHost, P::Network, P::ReceiverHost, P::Unknown].iter().zip(PLACES) {
            assert_eq!(wire_of(p), term.wire);
        }
        for (m, term) in [M::FourTuple, M::Isn, M::Timestamps, M::Segments].iter().zip(MATCHED_BY) {
            assert_eq!(wire_of(m), term.wire);
        }
    }

    #[test]
    fn string_sets_are_the_analysis_lists() {
        let wires = |ts: &[Term]| ts.iter().map(|t| t.wire).collect::<Vec<_>>();
        assert_eq!(wires(&LIMITS), crate::analysis::LIMITS);
        // The link codes' order (append-only) is the analysis's; the names are the same.
        let mut causes: Vec<&str> = STALL_CAUSES.iter().map(|&c| stall_cause(c).wire).collect();
        let mut coded = crate::analysis::STALL_CAUSES.to_vec();
        causes.sort_unstable();
        coded.sort_unstable();
        assert_eq!(causes, coded);
        assert_eq!(wires(&VERDICTS), crate::analysis::VERDICTS);
        assert_eq!(LIMITS_WITHOUT_SHARES, ["too-short", "one-direction", "not-established", "capture-gaps", "clock-broken"]);
        // The analysis's list lacks `periodic` (see EPISODE_KINDS): every other kind, in order.
        assert_eq!(wires(&EPISODE_KINDS[..5]), crate::analysis::EPISODE_KINDS);
    }

    #[test]
    fn warning_kinds_are_the_decoders_and_the_analysiss() {
        use crate::decode::WarningKind::*;
        let decoder = [
            UnknownLinkType, NotIp, NotTcp, IpFragment, TcpFragment, TruncatedHeaders, MalformedPacket, TimeWentBackwards,
            TimeOrderClamped, TimeJumpedForward, ImpossibleTimestamp, EncryptedFrame, BadFcs, BadTcpChecksum, AckedBadChecksum,
            UnansweredBadChecksum, AmsduSubframe,
        ];
        for (i, k) in decoder.into_iter().enumerate() {
            assert_eq!(WARNING_KINDS[i].0, k.name());
        }
        // Every `kind: "…"` of an AnalysisWarning in the analysis source is listed
        // (the source is read, not run: some are written only past a cap).
        let mut found = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src/analysis"))];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(dir).expect("src/analysis").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).expect("read");
                    for (i, _) in text.match_indices("AnalysisWarning {") {
                        let rest = &text[i..(i + 400).min(text.len())];
                        if let Some(k) = rest.find("kind: \"") {
                            let name = &rest[k + 7..];
                            found.push(name[..name.find('"').expect("closing quote")].to_string());
                        }
                    }
                }
            }
        }
        assert!(found.len() >= 5, "found {found:?}");
        let known: Vec<&str> = WARNING_KINDS.iter().map(|w| w.0).collect();
        for k in &found {
            assert!(known.contains(&k.as_str()), "analysis warning {k} is not in boundary::words::WARNING_KINDS");
        }
    }
}
