//! Stall placement's turn-taking rule (a gap a receiver's message ended), split from
//! placement.rs to keep each file readable in one sitting.

use super::*;

impl Ctx<'_> {
    /// A gap that ended when the receiver's message (its payload datagram m, at the
    /// sender side) had arrived: turn-taking, a requester waiting for the answer, or a
    /// server waiting for the next request. The gap holds the sender's data's trip to
    /// the receiver, the receiver's time before it began to answer, the answer's
    /// delivery (its round trips, a queue, any loss recovery: RFC 6298, RFC 8985) and
    /// the sender's own time before it sent again. The two hosts' parts are each read
    /// on one capture's clock (the receiver's: its data's arrival → the answer's first
    /// datagram; the sender's: the answer's last datagram → its next data), so they do
    /// not depend on the offset; the rest of the row's gap is the network's, its paths'
    /// floors included: waiting on a round trip is waiting on the path, and an answer
    /// that needs several (slow start after idle, RFC 5681 §4.1) waits several.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn turn(&self, mut out: PlacedStall, ss: usize, rs: usize, q: usize, r: usize, m: usize, gap: f64) -> PlacedStall {
        let sender = (self.at(ss, q) - self.at(ss, m)).clamp(0.0, gap);
        out.sender_host_ms = Some(sender / 1e6);
        let Some(m_r) = self.partner(ss, m) else {
            out.place = if sender >= gap / 2.0 { Place::SenderHost } else { Place::Unknown };
            out.why = format!("The sender waited on the receiver's answer and sent again {} after it arrived; the answer is not in the receiver-side capture, so the rest of the gap cannot be split.", ms(sender));
            return out;
        };
        // At the receiver: the sender's last data to arrive before the answer ended, and
        // the first datagram of the answer after it.
        let d = self.d[rs];
        let data_in = self.previous(rs, m_r, r, true);
        let first = data_in.and_then(|a| (a + 1..=m_r).find(|&k| usize::from(d[k].dir()) != r && d[k].len > 0));
        let receiver = match (data_in, first) {
            (Some(a), Some(k)) => (self.at(rs, k) - self.at(rs, a)).clamp(0.0, gap - sender),
            _ => 0.0,
        };
        let network = (gap - sender - receiver).max(0.0);
        out.receiver_host_ms = Some(receiver / 1e6);
        out.network_ms = Some(network / 1e6);
        // The answer's datagrams that resend one lost between: from the earliest lost
        // copy on, the answer waited on the network's loss recovery.
        let lost = (first.unwrap_or(m_r)..=m_r)
            .filter(|&k| usize::from(d[k].dir()) != r)
            .take(100_000)
            .filter_map(|k| self.lost_copy(rs, k, 1 - r))
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.min(t))))
            .map(|t| (self.at(rs, m_r) - t).clamp(0.0, network));
        let lost = lost.filter(|&t| t > 0.0).map_or(String::new(), |t| format!(", of which {} since a copy of the answer lost on the way", ms(t)));
        let (place, what) = if network >= sender && network >= receiver {
            (Place::Network, "the time went on the way")
        } else if receiver >= sender {
            (Place::ReceiverHost, "the receiver took the time to answer")
        } else {
            (Place::SenderHost, "the answer came in time: the sender took the time before its next data (its application)")
        };
        out.place = place;
        out.why = format!(
            "Of the {} gap, the sender waited on the receiver's answer: its data's trip and the answer's delivery took {}{lost} (the network), the receiver began answering {} after the data arrived, and the sender sent again {} after the answer arrived: {what}.",
            ms(gap),
            ms(network),
            ms(receiver),
            ms(sender)
        );
        out
    }
}
