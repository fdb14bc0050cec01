//! What the diagnosis says where the receiver's windows cannot be judged
//! (`TimeShares::windows_trusted` false: stalls/gaps.rs `windows_understated`, issue 39
//! review Q class C-RWND-HIDDEN): why, from what the capture holds, and the zero
//! windows the receiver advertised all the same — a zero window is zero whatever the
//! scale (RFC 7323 §2.3), so those closures are observed facts. The receive window's
//! share is then not quoted as a percentage (diagnosis/path_words.rs): 0 % would say
//! it never held the sender, which nothing showed.

use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::PacketColumns;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
const RST: u32 = crate::decode::tcp_flags::RST as u32;
const ZERO_WINDOW: u32 = crate::analysis::rows::columns::flag_bits::ZERO_WINDOW;
/// Closures listed by their times; more are counted.
const LISTED: usize = 3;

/// " (Why the receive-window limits cannot be judged.)" and the receiver's zero
/// windows, for the data direction of `conn`.
pub fn caveat(conn: &ConnectionSummary, cols: &PacketColumns) -> String {
    let d = conn.data_direction.min(1) as usize;
    let receiver = &conn.directions[1 - d];
    let h = &conn.handshake;
    let why = if crate::analysis::stalls::acks_unseen(cols) {
        " (This capture keeps only data segments — no pure ACK is in it — so the ACKs that opened the \
         receiver's window are missing, and receive-window limits cannot be judged.)"
            .to_string()
    } else if receiver.window_scale_unknown {
        " (The receiver's window scale is unknown — its SYN is not in the capture — so \
         receive-window limits cannot be judged.)"
            .to_string()
    } else {
        // RFC 7323 §2.2: windows are scaled only when both SYNs carry the option.
        let scale = match (h.syn.as_ref().map(|s| s.window_scale.is_some()), h.syn_ack.as_ref().map(|s| s.window_scale.is_some())) {
            (Some(true), Some(true)) => "though both SYNs in the capture carry the window scale option (RFC 7323 §2.2)",
            (Some(false), Some(false)) => "though neither SYN in the capture carries the window scale option, so its windows are unscaled (RFC 7323 §2.2)",
            (Some(_), Some(_)) => "though only one SYN in the capture carries the window scale option, so neither side scales its windows (RFC 7323 §2.2)",
            _ => "though its window scale is known from its SYN",
        };
        format!(
            " (Bytes in flight exceeded twice the receiver's advertised window, {scale}: the windows \
             seen are not the ones the sender obeyed — it sent past them, or a middlebox rewrote them — \
             so receive-window limits cannot be judged.)"
        )
    };
    why + &zero_windows(cols, 1 - d as u8, &receiver.from, receiver.zero_windows).unwrap_or_default()
}

/// " X still closed its window: N zero-window advertisements (a–b s, …)." for `dir`
/// (the receiver). N is the report's `zeroWindows` counter, `counted` (Wireshark's
/// tcp.analysis.zero_window: window 0 on a segment without SYN, FIN or RST that is not
/// itself a zero-window probe, track/flags.rs), so the sentence and the counter are one
/// number; the closures are timed from the rows carrying that same flag, each from its
/// first zero window to the receiver's next packet (not a SYN or RST) with a window
/// above zero. None without a zero window.
pub fn zero_windows(cols: &PacketColumns, dir: u8, who: &str, counted: u64) -> Option<String> {
    let (mut closures, mut open) = (Vec::new(), None::<f64>);
    let mut more = 0usize;
    for i in 0..cols.t.len() {
        if cols.dir[i] != dir || cols.flags[i] & (SYN | RST) != 0 || !cols.win[i].is_finite() {
            continue;
        }
        if cols.flags[i] & ZERO_WINDOW != 0 {
            open.get_or_insert(cols.t[i]);
        } else if cols.win[i] > 0.0 {
            if let Some(t0) = open.take() {
                if closures.len() < LISTED { closures.push(format!("{:.3}–{:.3} s", t0, cols.t[i])) } else { more += 1 }
            }
        }
    }
    if let Some(t0) = open {
        if closures.len() < LISTED { closures.push(format!("from {:.3} s on, never reopened", t0)) } else { more += 1 }
    }
    let count = counted;
    (count > 0 && !closures.is_empty()).then(|| {
        let n = closures.len() + more;
        let extra = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!(
            " {who} still closed its window {}: {count} zero-window advertisement{} ({}{extra}).",
            match n { 1 => "once".to_string(), 2 => "twice".to_string(), _ => format!("{n} times") },
            if count == 1 { "" } else { "s" },
            closures.join(", ")
        )
    })
}

/// The receive window's share as the sentences quote it: its percentage, or "cannot be
/// judged" where the windows are not (never "0 %", which would say it held nothing).
pub fn share(windows_trusted: bool, share: f64) -> String {
    if windows_trusted { crate::analysis::format::format_percent(share) } else { "cannot be judged".to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_windows_quote_the_counter_and_time_the_flagged_closures() {
        // The receiver (dir 1): window 1000 at 0 s, zero at 1 s and 2 s, reopened at 3 s;
        // zero again at 5 s, never reopened. Not zero windows by Wireshark's rule (track/flags.rs),
        // so not flagged and not counted: a RST with window 0 at 6 s, a FIN with window 0 at
        // 7 s, and at 8 s a 1-byte zero-window probe of its own (its peer had closed its
        // window too) carrying window 0. 3 flagged zero windows (the
        // counter `counted` = 3) in 2 closures: 1.000–3.000 s and from 5.000 s on. The
        // rows' own count of window-0 rows would say 5 (the FIN and the probe): the
        // sentence quotes the counter, so 3.
        let zw = ZERO_WINDOW;
        let fin = crate::decode::tcp_flags::FIN as u32;
        let mut c = PacketColumns::default();
        for (t, w, flags) in [(0.0, 1000.0, 0), (1.0, 0.0, zw), (2.0, 0.0, zw), (3.0, 500.0, 0), (5.0, 0.0, zw), (6.0, 0.0, RST), (7.0, 0.0, fin), (8.0, 0.0, 0)] {
            c.t.push(t);
            c.dir.push(1);
            c.win.push(w);
            c.flags.push(flags);
        }
        assert_eq!(
            zero_windows(&c, 1, "B", 3).as_deref(),
            Some(" B still closed its window twice: 3 zero-window advertisements (1.000–3.000 s, from 5.000 s on, never reopened).")
        );
        assert_eq!(zero_windows(&c, 0, "A", 0), None);
    }
}
