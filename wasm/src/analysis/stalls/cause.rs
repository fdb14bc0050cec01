//! A stall and its cause: the closed set of causes, with the JSON name of each.

use serde::{Deserialize, Serialize};

/// Every stall cause's JSON name. Share links store a cause as its index here, so
/// new causes are appended, never inserted (wasm/src/share/answers.rs).
pub const STALL_CAUSES: [&str; 9] =
    ["zero-window", "window-limited", "retransmission-timeout", "application-idle", "ack-wait", "unknown", "delayed-ack", "loss-recovery", "tail-loss-probe"];


#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum StallCause {
    ZeroWindow,
    WindowLimited,
    RetransmissionTimeout,
    ApplicationIdle,
    AckWait,
    /// Nagle's algorithm waiting for the peer's delayed ACK (delayed_ack.rs).
    DelayedAck,
    Unknown,
    /// Recovering data the receiver reported missing (its SACK blocks, RFC 2018 /
    /// RFC 6675), re-sent where this capture did not see it (stalls/reported_loss.rs).
    LossRecovery,
    /// Ended by a tail-loss probe the counters count (RFC 8985 §7: the probe timer,
    /// about two smoothed RTTs after the last send, re-sends the last segment), not
    /// by a retransmission timeout (stalls/timer_label.rs).
    TailLossProbe,
}

impl StallCause {
    /// Every cause, in `STALL_CAUSES` order (the test below keeps the two the same).
    pub const ALL: [StallCause; 9] = [
        StallCause::ZeroWindow,
        StallCause::WindowLimited,
        StallCause::RetransmissionTimeout,
        StallCause::ApplicationIdle,
        StallCause::AckWait,
        StallCause::Unknown,
        StallCause::DelayedAck,
        StallCause::LossRecovery,
        StallCause::TailLossProbe,
    ];

    /// Where the diagnosis counts a stall's time (verdict/diagnosis_shares.rs): its slot
    /// of the stalled time, 0 zero window, 1 window-limited, 2 a loss-recovery timer,
    /// 3 application idle, 4 waiting on ACKs, 5 unknown, 6 loss recovery whose re-sends
    /// the capture did not see (the loss share too). A new cause names its slot here
    /// and the shares, the savings and the auditor follow (docs/ARCHITECTURE.md).
    pub fn share_slot(self) -> usize {
        match self {
            StallCause::ZeroWindow => 0,
            StallCause::WindowLimited => 1,
            // The probe is a loss-recovery timer too (RFC 8985 §7): the same share.
            StallCause::RetransmissionTimeout | StallCause::TailLossProbe => 2,
            StallCause::ApplicationIdle => 3,
            // Waiting on an ACK too (the delayed one): the same share.
            StallCause::AckWait | StallCause::DelayedAck => 4,
            StallCause::Unknown => 5,
            StallCause::LossRecovery => 6,
        }
    }

    /// Waited on a loss-recovery timer of the sender: a retransmission timeout or a
    /// tail-loss probe (share slot 2).
    pub fn is_timer(self) -> bool {
        matches!(self, StallCause::RetransmissionTimeout | StallCause::TailLossProbe)
    }

    /// The `diagnosis.shares` field its time belongs to: `receiveWindow` (slots 0, 1),
    /// `loss` (2, 6), `application` (3) or `stalled` (4, 5), by the limit's name.
    pub fn share(self) -> &'static str {
        match self.share_slot() {
            0 | 1 => "receive-window",
            2 | 6 => "loss",
            3 => "application",
            _ => "stalled",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Stall {
    /// Seconds since the first packet of the file (time of the packet before the gap).
    pub start: f64,
    pub duration: f64,
    pub cause: StallCause,
    /// 1-based frame numbers of the packets either side of the gap.
    pub frame_before: u32,
    pub frame_after: u32,
    /// What ended it, in words ("retransmission of 1448 bytes", "window update to 64 KiB", ...).
    pub ended_by: String,
}

#[cfg(test)]
mod stall_cause_names {
    use super::{StallCause, STALL_CAUSES};

    #[test]
    fn every_stall_cause_has_its_json_name_in_the_list() {
        // ALL names every variant (the match is exhaustive), in STALL_CAUSES order.
        for cause in StallCause::ALL {
            match cause {
                StallCause::ZeroWindow
                | StallCause::WindowLimited
                | StallCause::RetransmissionTimeout
                | StallCause::ApplicationIdle
                | StallCause::AckWait
                | StallCause::DelayedAck
                | StallCause::Unknown
                | StallCause::LossRecovery
                | StallCause::TailLossProbe => {}
            }
        }
        let names: Vec<String> = StallCause::ALL.iter().map(|c| serde_json::to_value(c).unwrap().as_str().unwrap().to_string()).collect();
        assert_eq!(names, STALL_CAUSES);
    }
}

/// The time a direction stood still: the sum of its stalls' `duration`, s, to the ns
/// (stalls never overlap: each is one gap between two packets of the direction).
pub fn total_seconds(stalls: &[Stall]) -> f64 {
    // Folded from +0.0: `Sum` of no f64 is -0.0, which JSON writes as "-0.0".
    (stalls.iter().fold(0.0, |a, s| a + s.duration) * 1e9).round() / 1e9
}

#[cfg(test)]
mod total_seconds_tests {
    /// No stalls: 0 s, and a positive zero (serde_json writes -0.0 as "-0.0", which
    /// a reader comparing with `--json`'s "0" sees as a different number).
    #[test]
    fn no_stalls_is_a_positive_zero() {
        let t = super::total_seconds(&[]);
        assert!(t == 0.0 && t.is_sign_positive());
        assert_eq!(serde_json::to_string(&t).unwrap(), "0.0");
    }
}

/// A difference of two capture times, to the nanosecond the capture can hold: every
/// stall's duration (gaps/classify.rs, request_turn.rs). The subtraction's last-bit noise
/// (0.21736100000000003 s) would otherwise be written into every report and share link
/// (pcap timestamps are µs or ns, pcapng ≤ ns).
pub(in crate::analysis::stalls) fn whole_ns(seconds: f64) -> f64 {
    (seconds * 1e9).round() / 1e9
}
