//! A capture of the client's direction only (docs/ANALYSIS.md "How the connection
//! ended"): the SYN's receiver sent no packet the capture holds, yet the client
//! acknowledged it. A client sends an ACK-flagged segment only after it received the
//! peer's SYN (RFC 9293 §3.10.7.3: in SYN-SENT it sends nothing but SYNs), so the peer
//! did answer and its packets are simply not in the capture: no "No answer" then.

use super::super::conn::Side;
use super::Roles;
use crate::analysis::rows::columns::PacketColumns;
use crate::decode::tcp_flags::ACK;

/// The client sent an ACK-flagged segment: the cumulative ACK the peer's side holds
/// (`Side::peer_ack`, set from every segment with the ACK flag) exists.
pub(super) fn client_acknowledged(roles: &Roles, sides: &[Side; 2]) -> bool {
    roles.client.is_some_and(|c| sides[1 - c as usize & 1].peer_ack.is_some())
}

/// The ending's sentence `text`, with [`push_words`] after it where the connection is
/// open and the client's peer sent nothing the capture holds. The client's first
/// ACK-flagged segment is read from `rows` where all were stored.
pub(super) fn with_words(mut text: String, kind: &str, roles: &Roles, rows: Option<&PacketColumns>) -> String {
    let Some(c) = roles.client.filter(|_| kind == "open") else { return text };
    let first_ack_at = rows.and_then(|r| (0..r.t.len()).find(|&i| r.dir[i] == c && r.flags[i] & ACK as u32 != 0).map(|i| r.t[i]));
    let name = |d: u8| roles.names[d as usize & 1].as_str();
    push_words(&mut text, roles, first_ack_at, &name);
    text
}

/// " None of <peer>'s packets is in this capture, though <client> acknowledged them
/// (its ACK-flagged segments from <t> on): the capture holds one direction only." —
/// where the SYN's receiver sent no captured packet and the ending is still open.
fn push_words<'a>(s: &mut String, roles: &Roles, first_ack_at: Option<f64>, name: &impl Fn(u8) -> &'a str) {
    let Some(c) = roles.client else { return };
    if roles.packets[1 - c as usize & 1] != 0 {
        return;
    }
    *s += " None of ";
    *s += name(1 - c);
    *s += "'s packets is in this capture, though ";
    *s += name(c);
    *s += " acknowledged its SYN";
    if let Some(t) = first_ack_at {
        *s += " (its first ACK at ";
        super::in_words::push_timestamp(s, t);
        *s += ")";
    }
    *s += ": the capture holds one direction only.";
}
