//! The packets of a connection in the order the data SENDER lived them.
//!
//! Stalls, their causes and the limit shares judge the sender's state: what it had
//! in flight against the window it knew when it sent a segment, whether everything
//! it sent had been acknowledged when it went quiet. At a sender-side capture the
//! capture's order is the sender's. Elsewhere the receiver's ACKs and windows reach
//! the sender later: they pass the capture point, then travel on to the sender —
//! and what the sender sends in response comes back to the capture point one
//! "capture → sender → capture" part of the round trip later (vantage.rs). At a
//! receiver-side capture that is the whole path RTT: there every segment looks
//! acknowledged the moment it arrives, and a window-limited download would read as
//! an idle application (issue 13). So the peer's packets are replayed `lag` seconds
//! late: an ACK seen at t took effect for the data seen from t + lag on (Jiang &
//! Dovrolis 2002 use the same shift to reconstruct the sender's window passively).
//!
//! The merge is lazy: two cursors over the columns, no allocation.

use crate::analysis::rows::columns::PacketColumns;

/// Iterator over (row index, effective time): rows of `dir` at their capture time,
/// the peer's rows at capture time + `lag`, merged in effective-time order (a peer
/// row first on a tie, as in capture order when `lag` is 0).
pub struct SenderView<'a> {
    cols: &'a PacketColumns,
    dir: u8,
    lag: f64,
    own: usize,
    peer: usize,
}

pub fn sender_view(cols: &PacketColumns, dir: u8, lag_s: f64) -> SenderView<'_> {
    let lag = if lag_s.is_finite() && lag_s > 0.0 { lag_s } else { 0.0 };
    let mut v = SenderView { cols, dir, lag, own: 0, peer: 0 };
    v.own = v.next_of(0, true);
    v.peer = v.next_of(0, false);
    v
}

impl SenderView<'_> {
    fn next_of(&self, from: usize, own: bool) -> usize {
        let n = self.cols.t.len();
        (from..n).find(|&i| (self.cols.dir[i] == self.dir) == own).unwrap_or(n)
    }
}

impl Iterator for SenderView<'_> {
    type Item = (usize, f64);

    fn next(&mut self) -> Option<(usize, f64)> {
        let n = self.cols.t.len();
        let own_t = (self.own < n).then(|| self.cols.t[self.own]);
        let peer_t = (self.peer < n).then(|| self.cols.t[self.peer] + self.lag);
        let take_peer = match (own_t, peer_t) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            // Capture order on a tie (and with lag 0): the earlier row first.
            (Some(a), Some(b)) => b < a || (b == a && self.peer < self.own),
        };
        if take_peer {
            let i = self.peer;
            self.peer = self.next_of(i + 1, false);
            Some((i, peer_t.unwrap_or_default()))
        } else {
            let i = self.own;
            self.own = self.next_of(i + 1, true);
            Some((i, own_t.unwrap_or_default()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(rows: &[(f64, u8)]) -> PacketColumns {
        let mut c = PacketColumns::default();
        for &(t, d) in rows {
            c.t.push(t);
            c.dir.push(d);
        }
        c
    }

    #[test]
    fn without_lag_it_is_capture_order() {
        let c = cols(&[(0.0, 0), (0.001, 1), (0.001, 0), (0.002, 1)]);
        let v: Vec<usize> = sender_view(&c, 0, 0.0).map(|x| x.0).collect();
        assert_eq!(v, vec![0, 1, 2, 3]);
    }

    #[test]
    fn receiver_side_acks_take_effect_one_path_rtt_later() {
        // At the receiver: data at 0 and 10 ms, each ACKed 0.1 ms later; path 40 ms.
        // The sender learns of the first ACK when the data seen at 40.1 ms is sent.
        let c = cols(&[(0.0, 0), (0.0001, 1), (0.010, 0), (0.0101, 1), (0.045, 0)]);
        let v: Vec<(usize, f64)> = sender_view(&c, 0, 0.040).collect();
        let order: Vec<usize> = v.iter().map(|x| x.0).collect();
        assert_eq!(order, vec![0, 2, 1, 4, 3]);
        assert!((v[2].1 - 0.0401).abs() < 1e-12);
    }
}
