//! The charts of the connection stack and the series each draws, once: the page's
//! stack and keys (web/charts), the address (`#charts=`), share links
//! (share/build.rs), the compare view and `tcpscope render --chart` / `series`.

use crate::view::Series;

/// One chart of the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chart {
    /// `data-chart`, `#charts=`, `render --chart`.
    pub id: &'static str,
    /// Its title in the toolbar, the share panel and exported figures.
    pub title: &'static str,
    /// The series it always draws (what a share link stores for it; share/build.rs adds
    /// those drawn only on some connections: ECN, MPTCP, the sender's estimate).
    pub series: &'static [Series],
    /// The ECN series it draws besides on a connection that carried ECN (RFC 3168):
    /// the events strip's rows, the time-sequence chart's markers.
    pub ecn: &'static [Series],
    /// Drawn by the compare view (web/compare) as well.
    pub compared: bool,
    /// Drawn only for captures with radio headers (radiotap, PPI): not among the
    /// charts a share link stores by default.
    pub radio_only: bool,
}

const fn chart(id: &'static str, title: &'static str, series: &'static [Series], compared: bool) -> Chart {
    Chart { id, title, series, ecn: &[], compared, radio_only: false }
}

/// The stack, in its order: keys 1–7 follow it, so new charts go last.
pub const CHARTS: [Chart; 7] = [
    chart("throughput", "Throughput", &[Series::Throughput], true),
    chart("inflight", "In flight vs window", &[Series::Inflight, Series::Rwnd, Series::WindowLimited], true),
    chart("stalls", "Stalls", &[Series::Stalls], false),
    Chart { ecn: &[Series::Ecn], ..chart("sequence", "Time-sequence", &[Series::Sequence, Series::Ack, Series::WindowEdge], false) },
    chart("rtt", "RTT", &[Series::Rtt], false),
    Chart {
        ecn: &[Series::CeMarks, Series::Ece, Series::Cwr],
        ..chart("events", "Events", &[Series::Retransmissions, Series::DuplicateAcks, Series::ZeroWindows], false)
    },
    // PHY rate and 802.11 retries. A share link does not store it (no series: the
    // snapshot format has no Wi-Fi answer).
    Chart { id: "wifi", title: "Wi-Fi PHY rate and retries", series: &[], ecn: &[], compared: false, radio_only: true },
];

/// The chart named `id`, if any.
pub fn chart_of(id: &str) -> Option<&'static Chart> {
    CHARTS.iter().find(|c| c.id == id)
}

/// Every series of the view engine (`view::Series`), in its declaration order.
pub const SERIES: [Series; 22] = [
    Series::Throughput,
    Series::Goodput,
    Series::Wire,
    Series::Inflight,
    Series::Rwnd,
    Series::WindowLimited,
    Series::Rtt,
    Series::Sequence,
    Series::Stalls,
    Series::Ack,
    Series::WindowEdge,
    Series::Pipe,
    Series::Retransmissions,
    Series::DuplicateAcks,
    Series::ZeroWindows,
    Series::Wifi,
    Series::CeMarks,
    Series::Ece,
    Series::Cwr,
    Series::Ecn,
    Series::SenderInflight,
    Series::MptcpData,
];

/// The unit of a point series' values (M4 per pixel column), named in the CLI's CSV
/// columns (`first_bytes`, `min_seq`, …); None for series of bins or intervals.
pub fn point_unit(s: Series) -> Option<&'static str> {
    use Series::*;
    match s {
        Inflight | Pipe | Rwnd | SenderInflight => Some("bytes"),
        Ack | WindowEdge | Sequence => Some("seq"),
        Rtt => Some("ms"),
        Throughput | Goodput | Wire | WindowLimited | Stalls | Retransmissions | DuplicateAcks | ZeroWindows | Wifi | CeMarks | Ece
        | Cwr | Ecn | MptcpData => None,
    }
}

/// Series `tcpscope series --series NAME` does not offer: the ECN markers and the MPTCP
/// rate (answered for charts, not yet asked of the CLI).
const NOT_IN_CLI: [Series; 6] = [Series::CeMarks, Series::Ece, Series::Cwr, Series::Ecn, Series::SenderInflight, Series::MptcpData];

/// Whether `tcpscope series` offers the series.
pub fn in_cli(s: Series) -> bool {
    !NOT_IN_CLI.contains(&s)
}

/// The CLI's name of a series: its wire name (camelCase) in kebab-case
/// ("windowEdge" → "window-edge").
pub fn cli_name(wire: &str) -> String {
    let mut out = String::new();
    for c in wire.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SERIES` holds every variant: the exhaustive match fails to compile when one is
    /// added, and its index must then be the variant's place in the list.
    #[test]
    fn every_series_is_listed_once() {
        fn place(s: Series) -> usize {
            use Series::*;
            match s {
                Throughput => 0, Goodput => 1, Wire => 2, Inflight => 3, Rwnd => 4, WindowLimited => 5, Rtt => 6,
                Sequence => 7, Stalls => 8, Ack => 9, WindowEdge => 10, Pipe => 11, Retransmissions => 12,
                DuplicateAcks => 13, ZeroWindows => 14, Wifi => 15, CeMarks => 16, Ece => 17, Cwr => 18, Ecn => 19,
                SenderInflight => 20, MptcpData => 21,
            }
        }
        for (i, s) in SERIES.into_iter().enumerate() {
            assert_eq!(place(s), i, "{s:?}");
        }
    }

    #[test]
    fn cli_names_are_kebab_case() {
        assert_eq!(cli_name("windowEdge"), "window-edge");
        assert_eq!(cli_name("duplicateAcks"), "duplicate-acks");
        assert_eq!(cli_name("throughput"), "throughput");
    }
}
