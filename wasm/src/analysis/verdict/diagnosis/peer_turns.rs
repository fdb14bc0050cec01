//! The part of the sender's idle stalls that was the peer's turn (issue 39 review M,
//! zeek-asyncrat-detector 30a385ed….pcap connection 6: 7.1 s in which the server,
//! everything acknowledged, waited for the client's next request — client data frame
//! 459 at 20.188 s — was booked as the server application's idle time, "had the
//! application always had data ready … 377 ms instead of 9.7 s").
//!
//! The rule: in an `application-idle` stall (everything the sender sent acknowledged),
//! the time until the peer's last data segment in it is the peer's turn — the sender
//! had nothing to answer yet; from that segment to the sender's next data is the
//! sender's own time to answer (its think time). A readier sending application would
//! shorten only the latter.

use super::*;
use crate::analysis::stalls::cause::StallCause;

/// Seconds of the data direction's `application-idle` stalls that came before the
/// peer's last data segment within each (capture time; a stall without the peer's data
/// is all the sender's).
pub(super) fn peer_turn_seconds(conn: &ConnectionSummary, p: &crate::analysis::rows::columns::PacketColumns) -> f64 {
    let d = conn.data_direction.min(1);
    let mut total = 0.0;
    for s in conn.directions[d as usize].stalls.iter().filter(|s| s.cause == StallCause::ApplicationIdle) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        let Some(r) = (i + 1..j).rev().find(|&r| crate::analysis::stalls::is_data_segment(p, r, 1 - d)) else { continue };
        total += (p.t[r] - p.t[i]).clamp(0.0, s.duration);
    }
    total
}

/// " Had every answer been ready at once, the transfer would have taken about X instead
/// of Y." — the application's saving (savings.rs) less the peer's turns in the idle
/// stalls: answers ready at once remove the sender's time to answer, not the wait for
/// the requests. The headline's saving is left as it is (the headline compares the
/// limits by it). Empty where nothing would be left or nothing saved (as
/// `saving_sentence`).
pub(super) fn answers_saving_sentence(f: &Facts) -> String {
    let saved = (saving_of(&f.savings, "application") - peer_turn_seconds(f.conn, f.rows.packets)).max(0.0);
    if !(saved > 0.0 && f.sh.active > 0.0 && f.sh.active - saved > f.tick.max(SAVING_LEFT_MIN_S)) {
        return String::new();
    }
    format!(
        " Had every answer been ready at once, the transfer would have taken about {} instead of {}.",
        format_duration(f.sh.active - saved),
        format_duration(f.sh.active)
    )
}
