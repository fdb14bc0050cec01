//! Warnings read from the finished report rather than from packets: the bytes the
//! capture itself dropped, over every connection (each connection's count is
//! loss/capture_loss.rs's).

use super::one_direction::is_one_direction;
use crate::analysis::capture::limits::AnalysisWarning;
use crate::analysis::format::format_bytes;
use crate::analysis::report::ConnectionSummary;

/// The capture-wide `capture-loss` warning (the page's banner): how much the
/// receivers acknowledged that the analysis never saw, over every connection but those
/// captured in one direction only: what they lack is a whole direction, which the
/// `one-direction` warning says (one_direction.rs), not packets the capture dropped.
///
/// `tcp_fragments`: IP fragments of TCP segments in the capture (decode
/// `WarningKind::TcpFragment`) and their wire bytes. They are not reassembled, so the
/// segments they carry never reach the analysis, yet the receiver acknowledges them:
/// "the capture dropped packets" would blame the capture for what tcpscope skipped
/// (arkime socks5-http-302-frag.pcap: 62 fragments, 1,356 bytes acknowledged unseen,
/// nothing dropped). Which hole was a fragment is not known (a fragment past the first
/// has no TCP header), but the fragments' wire bytes bound what they can hold: bytes
/// acknowledged beyond that bound were dropped by the capture.
pub fn capture_loss_warning(conns: &[ConnectionSummary], tcp_fragments: (u64, u64)) -> Option<AnalysisWarning> {
    let (mut segments, mut bytes, mut holes, mut affected) = (0u64, 0u64, 0u64, 0usize);
    for c in conns.iter().filter(|c| c.capture_loss.unseen_bytes > 0 && !is_one_direction(c) && !super::broken_clock::is_clock_broken(c)) { // a broken clock's left-out packets are no capture loss
        segments += c.capture_loss.unseen_segments;
        bytes += c.capture_loss.unseen_bytes;
        holes += c.capture_loss.holes;
        affected += 1;
    }
    let fmt = |b: u64| format_bytes(b as f64);
    let s = |n: u64| if n == 1 { "" } else { "s" };
    let late = late_sightings(conns);
    if bytes == 0 && late > 0 {
        let message = format!("The capture saw {late} segment{} only after the receiver had acknowledged {}.{LATE}", s(late), if late == 1 { "it" } else { "them" });
        return Some(AnalysisWarning { kind: "capture-loss", count: 0, message });
    }
    // Holes first: what the capture shows; the segments are an estimate from sizes.
    let amount = format!(
        "{holes} hole{} in the captured data ({}, about {segments} segment{}) that the receiver acknowledged",
        s(holes),
        fmt(bytes),
        s(segments)
    );
    let conns = format!("in {affected} connection{}", s(affected as u64));
    let (fragments, fragment_bytes) = tcp_fragments;
    let message = if fragments == 0 {
        format!("The capture dropped packets: {amount} were never captured, {conns}. These holes are not counted as network loss or retransmissions.")
    } else {
        let held = format!(
            "The capture holds {fragments} IP fragment{} of TCP segments ({} on the wire), which tcpscope does not reassemble",
            s(fragments),
            fmt(fragment_bytes)
        );
        let verdict = if fragment_bytes >= bytes {
            "these bytes may all be in them".to_string()
        } else {
            format!("they can hold only part of these bytes, so the capture dropped at least {}", fmt(bytes - fragment_bytes))
        };
        format!("Not analysed: {amount} never reached the analysis, {conns}. {held}: {verdict}. These holes are not counted as network loss or retransmissions.")
    };
    let message = if late > 0 { format!("{message} {late} more segment{} came only after the receiver had acknowledged {}.{LATE}", s(late), if late == 1 { "it" } else { "them" }) } else { message };
    (bytes > 0).then(|| AnalysisWarning { kind: "capture-loss", count: holes, message })
}

/// The capture-loss warning's clause on late sightings (track/conn/late_sighting.rs).
const LATE: &str = " Each carried the IPv4 Identification its sender was due to give its next datagram, so each was the original, seen late (a capture merged from two taps or interfaces), not a re-send: counted once, not as a retransmission.";

/// Segments first captured after their ACK, every connection (`CaptureLoss::late_sightings`).
fn late_sightings(conns: &[ConnectionSummary]) -> u64 {
    conns.iter().map(|c| c.capture_loss.late_sightings).sum()
}

/// `link-padding`: segments whose zero bytes inside the IP length were link padding,
/// not data (track/padding.rs): counted, so a reader knows the capture's IP lengths
/// were rewritten and what Wireshark will show differently.
pub fn padding_warning(segments: u64) -> Option<AnalysisWarning> {
    (segments > 0).then(|| AnalysisWarning {
        kind: "link-padding",
        count: segments,
        message: format!(
            "{segments} segment{} carried zero bytes inside their IP length that their sender then re-used for other data: Ethernet padding written into the IP header by a box on the way, not data (analysed as pure ACKs; Wireshark counts them as payload and calls the next segment a retransmission)",
            if segments == 1 { "" } else { "s" }
        ),
    })
}

/// The capture-wide `two-senders` warning: the segments whose bytes conflicted, over
/// every connection (analysed all the same, as their direction's), and each connection's
/// sentence (at most three).
pub fn two_senders_warning(conns: &[ConnectionSummary]) -> Option<AnalysisWarning> {
    let found: Vec<&crate::analysis::track::two_senders::TwoSenders> = conns.iter().filter_map(|c| c.two_senders.as_deref()).collect();
    let count = found.iter().map(|f| u64::from(f.segments)).sum();
    let mut message = found.iter().take(3).map(|f| f.text.as_str()).collect::<Vec<_>>().join(" ");
    if found.len() > 3 {
        message += &format!(" And {} more connections.", found.len() - 3);
    }
    (!found.is_empty()).then_some(AnalysisWarning { kind: "two-senders", count, message })
}
