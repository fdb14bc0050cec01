//! The FTP control connection's sentence (mod.rs; docs/ANALYSIS.md "Application
//! facts"): its file transfers ran on data connections, in this capture or not.
//!
//! zeek `ftp/cwd-navigation.pcap`: one connection to port 21, 3,443 turns; each file
//! costs CWD, CWD, TYPE, PASV and RETR, and then the time between "150 Opening BINARY
//! mode data connection" and "226 Transfer complete" (frame 41 at 0.936 s → 43 at
//! 1.224 s). The PASV replies name the data ports (227 "(205,167,25,101,243,251)": port
//! 62459), and no connection of the capture uses them: the bytes of the files, and what
//! limited them, are not in this capture. The time is the transfers', not the
//! application's think time (review X C-CONTROL-CHANNEL-UNTOLD).

use super::Facts;
use crate::analysis::format::{format_duration, plural};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::track::connections::split_endpoint;

/// An endpoint's address and port number ("1.2.3.4:80", "[::1]:80").
fn split(endpoint: &str) -> (&str, u16) {
    let (host, port) = split_endpoint(endpoint);
    (host, port.parse().unwrap_or(0))
}

/// Connections of the capture that are this control connection's data connections:
/// another connection with one of the named ports at one end and one of the control
/// connection's two hosts at an end (a passive reply may name the server's address
/// behind a NAT, so the address it names is not compared; the client's is the same).
fn data_connections(f: &Facts, conns: &[ConnectionSummary], i: usize) -> Vec<usize> {
    let hosts: Vec<&str> = conns[i].endpoints.iter().map(|e| split(e).0).collect();
    (0..conns.len())
        .filter(|&j| j != i)
        .filter(|&j| {
            let ends: Vec<(&str, u16)> = conns[j].endpoints.iter().map(|e| split(e)).collect();
            ends.iter().any(|(_, p)| f.ports.contains(p)) && ends.iter().any(|(h, _)| hosts.contains(h))
        })
        .collect()
}

/// "This is an FTP control connection: …" (module comment); None without a transfer.
pub(super) fn sentence(f: &Facts, conns: &[ConnectionSummary], i: usize) -> Option<String> {
    let (longest, opened, closed) = f.longest?;
    let lead = format!(
        "The payload shows an FTP control connection (RFC 959): {} ran between the server's preliminary reply (150, \"opening data connection\") and its completion (226), {} in all (the longest {}, frame {opened} → frame {closed}), time of the transfers, not of the application",
        plural(u64::from(f.transfers), "file transfer"),
        format_duration(f.transfer_s),
        format_duration(longest),
    );
    let found = data_connections(f, conns, i);
    let ports = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
    let more = if f.ports_named as usize > f.ports.len() { " …" } else { "" };
    // Ports whose data connection the capture holds; the others' are absent (review AC W4:
    // tickedoffdeveloper held 1 of 4 named data connections, ftp-pe 1 of 5, and the
    // sentence had said all their bytes went over the one present).
    let present = f.ports.iter().filter(|&&p| found.iter().any(|&j| conns[j].endpoints.iter().any(|e| split(e).1 == p))).count();
    // Distinct ports named: the list holds each once until its cap, past which only the
    // count of namings (repeats included) is known.
    let distinct = if f.ports.len() >= super::MAX_PORTS { f.ports_named as usize } else { f.ports.len() };
    let absent = distinct.saturating_sub(present);
    let ids: Vec<String> = found.iter().take(5).map(|&j| conns[j].id.to_string()).collect();
    let extra = if found.len() > 5 { format!(" and {} more", found.len() - 5) } else { String::new() };
    let which = if found.len() == 1 { "connection" } else { "connections" };
    Some(if found.is_empty() {
        let named = if f.ports.is_empty() { String::new() } else { format!(" (the replies and commands named data ports {}{more})", ports(&f.ports)) };
        format!("{lead}; their bytes went over data connections that are not in this capture{named}, so what limited the files' transfer cannot be read here.")
    } else if absent > 0 {
        let (its, report) = if present == 1 { ("its connection", "report says what limited it") } else { ("their connections", "reports say what limited them") };
        format!(
            "{lead}; of the {} data ports the replies and commands named, {present} had {its} in this capture ({which} {}{extra}, whose own {report}) and {absent} did not, so what limited those transfers cannot be read here.",
            distinct,
            ids.join(", ")
        )
    } else {
        format!("{lead}; their bytes went over the data {which} {}{extra} of this capture (ports named in the replies and commands), whose own reports say what limited them.", ids.join(", "))
    })
}
