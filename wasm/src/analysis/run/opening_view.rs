//! The time range the charts open on (docs/ANALYSIS.md `connection.dataView`).
//!
//! A connection can idle long before or after its transfer: an HTTP keep-alive held
//! open for a minute after the response, a monitor capture started long before the
//! download, a TCP keep-alive every 75 s. Opened on the whole connection, the transfer
//! is then a few pixels wide. So the page opens on the data — first to last data
//! segment (payload > 0) of either direction, extended over the connection's stalls
//! (a stall is a gap while the transfer has not ended, DESIGN.md "Stall": a transfer
//! that stopped on a zero window or a timer keeps its stall in view), with a margin of
//! [`MARGIN`] of that span each side — and keeps the whole connection one key away (`0`). Where the data
//! fills most of the connection anyway (at least [`FILLS`] of the whole view), the page
//! opens on the whole connection, which keeps the handshake and the teardown in view at
//! a cost of a few percent of the width.
//!
//! The whole view's padding ([`whole_view`]) is the page's own (web/charts/timeRange.ts
//! `fullRange`), so that the view engine, share links and the page grid the same range.

use crate::analysis::rows::columns::PacketColumns;

/// Margin around the data, as a share of the data's span, each side: the first and last
/// segments' marks stay clear of the plot's edges.
pub const MARGIN: f64 = 0.02;
/// Padding of the whole-connection view, as a share of the connection's span, each side.
pub const WHOLE_PADDING: f64 = 0.01;
/// Half-width of the view around a span of zero width (one packet, or one data
/// segment), s: a millisecond wide in all.
pub const ZERO_SPAN_HALF: f64 = 0.0005;
/// The data view replaces the whole view only when it is narrower than this share of
/// it: otherwise the zoom would gain under a tenth of the width and hide the handshake.
pub const FILLS: f64 = 0.9;

/// The page's view of a whole connection [start, end]: its span and [`WHOLE_PADDING`]
/// of it on each side, ±[`ZERO_SPAN_HALF`] around a connection of zero width.
pub fn whole_view(start: f64, end: f64) -> (f64, f64) {
    padded(start, end, WHOLE_PADDING)
}

fn padded(first: f64, last: f64, share: f64) -> (f64, f64) {
    let span = last - first;
    if !(span > 0.0) {
        return (first - ZERO_SPAN_HALF, first + ZERO_SPAN_HALF);
    }
    (first - span * share, last + span * share)
}

/// The range the charts open on when it is not the whole view: the data segments'
/// span [first, last] with [`MARGIN`] each side, kept inside the whole view of
/// [start, end]. None when the data view fills at least [`FILLS`] of the whole view
/// (or a time is not finite): open on the whole connection.
pub fn data_view(first: f64, last: f64, start: f64, end: f64) -> Option<[f64; 2]> {
    if ![first, last, start, end].iter().all(|t| t.is_finite()) || last < first {
        return None;
    }
    let (w0, w1) = whole_view(start, end);
    let (d0, d1) = padded(first, last, MARGIN);
    let (t0, t1) = (d0.max(w0), d1.min(w1));
    (t1 > t0 && t1 - t0 < FILLS * (w1 - w0)).then_some([t0, t1])
}

/// The times of the first and last data segment (payload > 0) of either direction in
/// `packets`, by time (a capture's order is not always time order). None without data.
pub fn data_span(packets: &PacketColumns) -> Option<(f64, f64)> {
    let mut span: Option<(f64, f64)> = None;
    for (&t, &len) in packets.t.iter().zip(&packets.len) {
        if len > 0 && t.is_finite() {
            span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
    }
    span
}

/// The connection's opening view from its stored rows and its stalls (`(start, end)`
/// of each, both directions). `unstored`: packets beyond the store's cap (limits.rs)
/// were not kept, so the data may run on to the connection's end, which is then the
/// data's last time.
pub fn of(packets: &PacketColumns, unstored: bool, start: f64, end: f64, stalls: impl IntoIterator<Item = (f64, f64)>) -> Option<[f64; 2]> {
    let (mut first, mut last) = data_span(packets)?;
    if unstored {
        last = end;
    }
    for (s0, s1) in stalls {
        if s0.is_finite() && s1.is_finite() {
            (first, last) = (first.min(s0), last.max(s1));
        }
    }
    data_view(first, last, start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_after_a_long_idle_opens_on_the_data_with_two_percent_each_side() {
        // Connection 0..70 s, data 60..70 s: 10 s of data, 0.2 s margin each side; the
        // right margin is cut at the whole view's edge (70 + 0.7 s), which it is inside.
        let v = data_view(60.0, 70.0, 0.0, 70.0).unwrap();
        assert!((v[0] - 59.8).abs() < 1e-12 && (v[1] - 70.2).abs() < 1e-12, "{v:?}");
    }

    #[test]
    fn data_filling_the_connection_opens_on_the_whole_connection() {
        // A bulk transfer whose handshake and teardown take 2 % of the time.
        assert_eq!(data_view(0.01, 0.99, 0.0, 1.0), None);
        // The margin never reaches past the whole view.
        // The margin never reaches past the whole view: 2 % of 60 s is 1.2 s, the whole
        // view starts 1 % of 100 s (1 s) before the connection.
        let v = data_view(0.0, 60.0, 0.0, 100.0).unwrap();
        assert_eq!(v[0], -1.0);
        assert!((v[1] - 61.2).abs() < 1e-12, "{v:?}");
    }

    #[test]
    fn one_data_segment_opens_on_a_millisecond_around_it() {
        let v = data_view(5.0, 5.0, 0.0, 60.0).unwrap();
        assert_eq!(v, [5.0 - ZERO_SPAN_HALF, 5.0 + ZERO_SPAN_HALF]);
        assert_eq!(data_view(f64::NAN, 5.0, 0.0, 60.0), None);
        assert_eq!(data_view(6.0, 5.0, 0.0, 60.0), None);
    }

    #[test]
    fn the_span_is_by_time_not_capture_order_and_ignores_pure_acks() {
        let p = PacketColumns { t: vec![0.0, 9.0, 3.0, 12.0], len: vec![0, 100, 100, 0], ..Default::default() };
        assert_eq!(data_span(&p), Some((3.0, 9.0)));
        // Unstored packets: the data may run to the end (12 s), cut at the whole view's edge.
        let v = of(&p, true, 0.0, 12.0, []).unwrap();
        assert!((v[0] - 2.82).abs() < 1e-12 && (v[1] - 12.12).abs() < 1e-12, "{v:?}");
        assert_eq!(data_span(&PacketColumns { t: vec![1.0], len: vec![0], ..Default::default() }), None);
    }

    #[test]
    fn a_stall_after_the_last_data_segment_stays_in_view() {
        // Data 0.016..0.264 s, then a zero-window stall to the connection's end at 25.1 s
        // (Linux probes a zero window with 0-byte segments): the whole connection.
        let p = PacketColumns { t: vec![0.0, 0.016, 0.264, 25.1], len: vec![0, 100, 100, 0], ..Default::default() };
        assert_eq!(of(&p, false, 0.0, 25.1, [(0.259, 25.1)]), None);
        assert!(of(&p, false, 0.0, 25.1, []).is_some());
    }
}
