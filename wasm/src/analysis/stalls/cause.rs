//! A stall and its cause: the closed set of causes, with the JSON name of each.

use serde::Serialize;

/// Every stall cause's JSON name. Share links store a cause as its index here, so
/// new causes are appended, never inserted (wasm/src/share/answers.rs).
pub const STALL_CAUSES: [&str; 7] =
    ["zero-window", "window-limited", "retransmission-timeout", "application-idle", "ack-wait", "unknown", "delayed-ack"];


#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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
        use StallCause::*;
        for cause in [ZeroWindow, WindowLimited, RetransmissionTimeout, ApplicationIdle, AckWait, DelayedAck, Unknown] {
            let name = serde_json::to_value(cause).unwrap();
            assert!(STALL_CAUSES.contains(&name.as_str().unwrap()), "{name} is not in STALL_CAUSES");
        }
    }
}
