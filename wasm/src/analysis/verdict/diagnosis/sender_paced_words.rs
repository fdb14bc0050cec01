//! The headline of a sender that set its own rate with data in flight
//! (diagnosis_shares/sender_paced.rs): its application's clock, or a fixed cap at the
//! sender. Said instead of the application's "everything sent had been acknowledged",
//! which would be false: data was outstanding throughout.

use super::*;
use crate::analysis::verdict::diagnosis_shares::sender_paced::PacedKind;

/// The headline's text where the application's share holds time the sender's own
/// clock or cap set (`sh.sender_paced`); None otherwise.
pub(in crate::analysis::verdict::diagnosis) fn sender_paced_text(f: &Facts) -> Option<String> {
    let p = f.sh.sender_paced?;
    let s = f.shares;
    let held = format!(
        "neither the receive window ({}) nor loss ({}) held it",
        crate::analysis::verdict::window_unjudged::share(f.sh.windows_trusted, s.receive_window) + if f.sh.windows_trusted { " of the time" } else { "" },
        format_percent(s.loss)
    );
    let active = f.sh.active.max(f64::MIN_POSITIVE);
    // The report's own number (docs/ANALYSIS.md `maxBytesInFlight`), as the table shows it.
    let most = f.conn.directions[f.conn.data_direction.min(1) as usize].max_bytes_in_flight.map_or(p.max_in_flight, |b| b as f64);
    Some(match p.kind {
        PacedKind::Clock { record, period, per_second, small, segments } => format!(
            "The sending application's clock set the rate ({} of the time): it sent a segment about every {} \
             ({:.0} per second, median {}) at a steady rate that did not follow the ACKs, {} of its {} segments \
             below half a full segment — each record sent as it was written, nothing queued behind it — and never \
             had more than {} unacknowledged, about what it produced in a round trip ({}); {}; {}. The network \
             carried what the application produced; a larger window or a faster link would not have sped it up.",
            format_percent(p.seconds / active),
            format_duration(period),
            per_second,
            format_bytes(record),
            small,
            segments,
            format_bytes(most),
            format_duration(p.rtt),
            held,
            rate_phrase(f)
        ),
        PacedKind::Cap { bytes, segment, capped, flights, drain_median, drain_max, period } => format!(
            "The sender capped its data in flight at {} ({:.0} bytes; {} of the time at it): {} of its {} flights of \
             at least half that stopped at exactly that byte count — no whole number of its {:.0}-byte segments — and none went beyond it, each sent within {} (median; at most {}) of \
             a {} round trip before the sender waited for ACKs. A fixed byte count, round after round, is a limit \
             at the sender — its send buffer, or its application writing {} at a time — not a congestion window \
             (which counts segments and grows each round trip without loss) nor the path (which carried each flight in a fraction of \
             the round trip). It capped the rate at about {} ({} per {}); {}, the receiver's {} window had room, \
             and {}.",
            format_bytes(bytes),
            bytes,
            format_percent(p.seconds / active),
            capped,
            flights,
            segment,
            format_duration(drain_median),
            format_duration(drain_max),
            format_duration(p.rtt),
            format_bytes(bytes),
            format_rate(bytes * 8.0 / period),
            format_bytes(bytes),
            format_duration(period),
            held,
            format_bytes(f.max_window),
            rate_phrase(f)
        ),
        PacedKind::StopAndWait { segments, record, after_ack } => format!(
            "A stop-and-wait sender set the rate ({} of the time): each of its {segments} segments (median {}) left only \
             after the previous one was acknowledged (median {} after that ACK passed the capture point), never two in flight, though the \
             receiver's {} window had room for more; {}. A congestion window does not stay at one segment for {segments} \
             round trips without loss (slow start doubles it each round trip from an initial window of 1–10 segments, \
             RFC 5681 §3.1, RFC 6928): the sender sent one segment per acknowledgement — its application waiting for \
             each, or its stack sending so. {} with {}: a larger window or a faster link would not have sped it up, \
             more data in flight per round trip would.",
            format_percent(p.seconds / active),
            format_bytes(record),
            format_duration(after_ack),
            format_bytes(f.max_window),
            held,
            capital(&rate_phrase(f)),
            rtt_phrase(f)
        ),
        PacedKind::Writes(w) => format!(
            "The sender had nothing queued ({} of the time): {} of its {} segments ended a write: PSH set, no whole \
             number of full segments (median {}, a full segment {}), more data after them. A sender with data waiting \
             sends only full segments (RFC 9293 §3.8.6.2.1), so nothing it had written was left unsent after each; {}. Its application set the pace, at about {} \
             while active: neither the congestion window nor the path held data back, and a larger window or a \
             faster link would not have sped it up.",
            format_percent(p.seconds / active),
            w.ends,
            w.segments,
            format_bytes(w.tail),
            format_bytes(w.full),
            held,
            format_rate(f.rate)
        ),
    })
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|x| x.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}
