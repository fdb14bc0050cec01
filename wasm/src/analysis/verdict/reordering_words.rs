//! The reordering sentence (docs/ANALYSIS.md "Reordering"; issue 39 review Z class 7:
//! rtsp's 1,015 out-of-order segments and 446 duplicate ACKs were told only as "loss
//! (0 %)"; sakshi's Windows sender put its segments on the wire out of IP-ID order).
//!
//! A data segment arrived out of order when it is an original (no re-send) below the
//! highest sequence already captured (RFC 4737 §3.3; Wireshark's out-of-order,
//! gaps/resends.rs `reordered`). The capture alone could have reordered it (copies
//! merged from two interfaces), so the sentence needs the receiver's word too: duplicate
//! ACKs for holes that closed without a re-send repairing them
//! (diagnosis_shares/reorder_dup_acks.rs `dup_acks_of_reordering`) — the receiver saw
//! the same holes, and the late originals filled them. The re-sends it caused are the
//! fast re-sends (sent on duplicate ACKs, RFC 5681 §3.2) the receiver showed needless
//! (D-SACK, RFC 2883 §4, or Eifel evidence). Said only where at least
//! [`MIN_SHARE`] of the data segments arrived out of order, and at least
//! [`MIN_SEGMENTS`] did: a rare swap costs nothing worth a sentence.

use crate::analysis::format::plural;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::{is_data_segment, needless, reordered};
use crate::analysis::timing::vantage::Vantage;
use crate::analysis::verdict::diagnosis_shares::dup_acks_of_reordering;
use crate::analysis::report::ConnectionSummary;

/// Share of the data segments out of order from which the sentence is said (review Z: 5 %).
pub const MIN_SHARE: f64 = 0.05;
/// Fewest out-of-order segments for the sentence.
pub const MIN_SEGMENTS: u64 = 2;

/// The counts the sentence tells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reordering {
    /// Data segments of the direction.
    pub segments: u64,
    /// Of them, originals captured after a later one.
    pub out_of_order: u64,
    /// The receiver's duplicate ACKs for holes the late originals filled.
    pub dup_acks: u64,
    /// Fast re-sends the receiver showed needless.
    pub needless_fast: u64,
}

/// Direction `dir`'s reordering counts (module doc).
pub fn count(p: &PacketColumns, dir: u8) -> Reordering {
    let mut r = Reordering::default();
    for i in (0..p.t.len()).filter(|&i| is_data_segment(p, i, dir)) {
        let f = p.flags[i];
        r.segments += 1;
        r.out_of_order += u64::from(reordered(f));
        r.needless_fast += u64::from(f & flag_bits::ANY_RETRANSMISSION != 0 && f & flag_bits::KIND_FAST != 0 && needless(f));
    }
    r.dup_acks = dup_acks_of_reordering(p, dir).len() as u64;
    r
}

/// " The segments arrived out of order: …" (leading space), or "" where the capture does
/// not show the receiver saw it or there is too little of it (module doc).
pub fn sentence(conn: &ConnectionSummary, p: &PacketColumns) -> String {
    let d = conn.data_direction.min(1);
    let r = count(p, d);
    if r.segments == 0 || r.dup_acks == 0 || r.out_of_order < MIN_SEGMENTS || (r.out_of_order as f64) < MIN_SHARE * r.segments as f64 {
        return String::new();
    }
    let percent = (100.0 * r.out_of_order as f64 / r.segments as f64).round();
    // At the sending host the capture saw them leave out of order: the sender's own
    // stack or network card reordered them; elsewhere, the path before the capture.
    let where_ = match conn.vantage {
        Vantage::Sender => "left the sending host out of order (its own stack or network card reordered them)",
        _ => "arrived out of order",
    };
    let cost = match r.needless_fast {
        0 => "no re-send".to_string(),
        n => format!("{} the receiver showed needless", plural(n, "fast re-send")),
    };
    format!(
        " Reordering, not loss: {} of {} data segments ({percent} %) {where_}; the receiver sent {} for holes the late originals then filled, and it cost {cost}.",
        group(r.out_of_order),
        group(r.segments),
        plural_grouped(r.dup_acks, "duplicate ACK"),
    )
}

/// 1015 → "1,015".
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural_grouped(n: u64, what: &str) -> String {
    format!("{} {what}{}", group(n), if n == 1 { "" } else { "s" })
}
