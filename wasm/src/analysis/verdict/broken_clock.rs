//! The verdict of a connection whose clock is broken (capture/broken_clock.rs counts
//! its packets without a usable time; docs/ANALYSIS.md "A broken capture clock"), or whose
//! capture clock a host's own TCP timestamp clock contradicts (timing/ts_clock_check.rs).

use crate::analysis::capture::broken_clock::judge;
use crate::analysis::format::format_duration;
use crate::analysis::report::{ConnectionSummary, Diagnosis};
use crate::analysis::timing::ts_clock_check::TsClockCheck;

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

/// Replace the diagnosis of a connection whose capture clock a host's own TCP timestamp
/// clock contradicts both ways (timing/ts_clock_check.rs; docs/ANALYSIS.md "A capture
/// clock the hosts' clocks contradict"); true if so. `margin_ns`: the capture's jitter.
pub fn apply_ts_check(c: &mut ConnectionSummary, check: Option<&TsClockCheck>, margin_ns: i64) -> bool {
    if is_clock_broken(c) {
        return false;
    }
    let Some(k) = check.and_then(|k| k.verdict(margin_ns)) else { return false };
    let host = &c.endpoints[k.host];
    // The host's clock in time, where the connection lasted long enough to measure it.
    let at_rate = |ticks: u32| k.ticks_per_s.filter(|r| *r > 0.0).map_or(String::new(), |r| format!(", about {}", format_duration(f64::from(ticks) / r)));
    let (l, s) = (k.too_long, k.too_short);
    let text = format!(
        "This capture's clock does not follow the packets: {host}'s own TCP timestamp clock (RFC 7323) moved {} tick{}{} from frame {} to frame {}, \
         which answers frame {} — yet the capture stamps frame {} {} after frame {}; and it moved {} ticks{} from frame {} (answering frame {}) to frame {}, \
         which the capture stamps only {} after frame {}. No clock rate gives both: the capture stamped its packets in batches, not as they passed \
         (a relay or remote-virtual-interface capture). Its gaps, stalls, rates and round trips are not judged, so no limit is named; \
         Wireshark's frame order and the TCP timestamps still show the sequence of events.",
        l.moved, if l.moved == 1 { "" } else { "s" }, at_rate(l.moved), l.frames[0], l.frames[2], l.frames[1], l.frames[1],
        format_duration(l.gap_ns as f64 / 1e9), l.frames[0],
        s.moved, at_rate(s.moved), s.frames[0], s.frames[1], s.frames[2], format_duration(s.gap_ns as f64 / 1e9), s.frames[1],
    );
    *c.diagnosis = Diagnosis { limit: "clock-broken".to_string(), text, ..Diagnosis::default() };
    true
}
