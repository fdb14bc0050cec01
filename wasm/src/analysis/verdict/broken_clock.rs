//! The verdict of a connection whose clock is broken (capture/broken_clock.rs counts
//! its packets without a usable time; docs/ANALYSIS.md "A broken capture clock").

use crate::analysis::capture::broken_clock::judge;
use crate::analysis::report::{ConnectionSummary, Diagnosis};

/// Replace the diagnosis of a connection whose clock is broken ([`judge`]); true if so.
pub fn apply(c: &mut ConnectionSummary, untimed: [u64; 2]) -> bool {
    let Some((n, m)) = judge(c.packets, untimed) else { return false };
    let [out, bad] = untimed;
    let mut why = Vec::new();
    if out > 0 {
        why.push(format!("{out} stamped more than 2 s before a packet already read, so left out"));
    }
    if bad > 0 {
        why.push(format!("{bad} analysed at a timestamp whose field cannot be a time"));
    }
    let text = format!(
        "This capture's clock is broken: {n} of this connection's {m} packets have no usable time ({}). \
         Its gaps, stalls, rate and round trip would be built from the stamps that remain, and the packets left out would read as data \
         the capture missed, so no limit is named. Wireshark's frame order and the TCP timestamps, where negotiated, still show the sequence of events.",
        why.join("; ")
    );
    *c.diagnosis = Diagnosis { limit: "clock-broken".to_string(), text, ..Diagnosis::default() };
    true
}

pub fn is_clock_broken(c: &ConnectionSummary) -> bool {
    c.diagnosis.limit == "clock-broken"
}
