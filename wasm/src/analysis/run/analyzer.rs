//! Feeds segments into connections: per packet, the Wireshark flag rules
//! (flags.rs), relative sequence numbers (sequence.rs), window scaling
//! (window.rs), bytes in flight, RTT samples (rtt.rs) and SACK blocks, all pushed
//! into the connection's compact row store (store.rs) in capture order; `finish`
//! turns the rows into summaries (summary.rs).
//!
//! Memory: one `Conn` per connection (a few hundred bytes of state plus its rows,
//! ~12–16 bytes per packet); per packet nothing is allocated except the store's
//! chunk growth (the RTT queues and the capture-gap list grow only while data is
//! unacknowledged). Limits (`AnalysisOptions::max_connections`,
//! `max_stored_packets`) bound memory on hostile captures: see limits.rs.

use super::summary;
use crate::analysis::capture::clock::{self, ClockTicks};
use crate::analysis::capture::duplicates::DuplicateFilter;
use crate::analysis::capture::rewritten_copies::{RewrittenCopies, Verdict};
use crate::analysis::capture::facts::CaptureFacts;
use crate::analysis::capture::limits::Limits;
use crate::analysis::capture::options::AnalysisOptions;
use crate::analysis::capture::radio::MAX_RADIO_SAMPLES;
use crate::analysis::loss::datagram_ids::{SourceIds, SourceLast};
use crate::analysis::report::Analysis;
use crate::analysis::rows::store::secs;
use crate::analysis::track::conn::Conn;
use crate::analysis::track::connections::{starts_new_connection, ConnTable, FlowKey, Lookup};
use crate::analysis::track::incarnation;
use crate::analysis::verdict::broken_clock;
use crate::decode::TcpSegment;
use std::net::IpAddr;

pub struct Analyzer {
    options: AnalysisOptions,
    table: ConnTable,
    /// Boxed so that `finish` frees each connection's state as it is summarised
    /// (a `Vec<Conn>` buffer would stay allocated until the end: ~1 GB at 1M).
    conns: Vec<Box<Conn>>,
    limits: Limits,
    duplicates: DuplicateFilter,
    /// Copies from both sides of a sequence-rewriting middlebox (rewritten_copies.rs),
    /// and the segment held back until the next one tells whether it is such a copy.
    rewritten: RewrittenCopies,
    held: Option<(Box<TcpSegment>, i64)>,
    /// Each IPv4 source's last datagram number and connection (datagram_ids.rs).
    source_ids: SourceIds,
    clock: ClockTicks,
    /// SYN/ACKs' IPv4 IDs, for one box answering several servers (terminating_proxy.rs).
    syn_ack_ids: crate::analysis::verdict::terminating_proxy::SynAckIds,
    /// Radio samples logged so far (radio.rs cap).
    radio_samples: usize,
    /// MPTCP subflows and their data-level mappings (mptcp.rs); made at the first
    /// MPTCP option, so a capture without one pays one pointer.
    mptcp: Option<Box<crate::analysis::track::mptcp::Tracker>>,
    /// IP fragments of TCP segments the decoder skipped (decode `WarningKind::TcpFragment`)
    /// and their wire bytes, set by the session before `finish`: the capture-loss
    /// warning's words.
    pub tcp_fragments: (u64, u64),
    /// Packets the file holds twice (a capture appended to itself), left out by the
    /// session's timeline (capture/timeline.rs, Repeats), set before `finish`.
    pub repeated_frames: u64,
    /// Per 4-tuple, packets without a usable time (capture/broken_clock.rs), set by the
    /// session before `finish`.
    pub untimed: crate::analysis::capture::broken_clock::Untimed,
    /// Interfaces the file describes (decode `CaptureInfo::interfaces`; 0 unknown), set
    /// by the session before `finish`: one clock each (verdict/broken_clock.rs).
    pub interfaces: u32,
    /// ICMP errors quoting TCP segments (decode/icmp.rs) at their analysis times (s
    /// since the file's first packet), set by the session before `finish`.
    pub icmp: Vec<(f64, crate::decode::icmp::IcmpQuote)>,
    /// Segments analysed, and those without payload (`CaptureFacts::payload_only`).
    segments: (u64, u64),
    /// Segments of another incarnation of a 4-tuple (incarnation.rs).
    set_aside: incarnation::SetAside,
    /// FTP/SMTP facts of the connections whose payload carried such lines (app_facts).
    app: crate::analysis::verdict::app_facts::Table,
    /// Each connection's hosts' TCP timestamp clocks against the capture's, by index
    /// (timing/ts_clock_check.rs; a side table: `Conn` stays its size).
    ts_checks: crate::analysis::timing::ts_clock_check::TsClockChecks,
    /// False when only the report will be asked (the CLI's rows, `rows_only`): `finish`
    /// then drops each connection's chart rows, radio samples and kept window-limited
    /// spans as soon as its summary is made.
    keep_rows: bool,
    /// Payload-free frames with a partial checksum by source (capture_host.rs), fed by
    /// the session with every frame of the capture (`note_checksum`).
    offload: crate::analysis::capture::capture_host::OffloadTally,
    /// Connections gone quiet give back their logs' growth room (quiet.rs).
    quiet: super::quiet::QuietSweep,
}

/// A connection as far as the capture has been read (the progressive view, issue 41;
/// view/partial.rs): what the analyzer has counted so far, read in place.
#[derive(Clone, Copy, Debug)]
pub struct RunningConnection<'a> {
    /// endpoints[0] sent the first packet seen (direction 0), as in the summary.
    pub endpoints: [(IpAddr, u16); 2],
    /// First and latest packet, s since the file's first packet.
    pub first_t: f64,
    pub last_t: f64,
    pub packets: u64,
    /// Packets not stored (the packet budget was spent, limits.rs): the final charts stop there.
    pub unstored: u64,
    pub directions: [crate::analysis::rates::throughput::RunningBins<'a>; 2],
}

impl Analyzer {
    /// Connections so far; ids are positions, as `finish` numbers them.
    pub fn connection_count(&self) -> usize {
        self.conns.len()
    }

    /// Connection `index` so far (its id once finished: `finish` keeps the order).
    pub fn running(&self, index: usize) -> Option<RunningConnection<'_>> {
        let c = self.conns.get(index)?;
        let ((p0, d0), (p1, d1)) = (c.totals[0].running(), c.totals[1].running());
        Some(RunningConnection { endpoints: c.endpoints, first_t: c.first_t, last_t: c.last_t, packets: p0 + p1, unstored: c.unstored, directions: [d0, d1] })
    }

    /// Whether any of `seg`'s payload was sent before in its connection as analysed so
    /// far, or acknowledged by the peer: a failing frame whose bytes an
    /// earlier frame carried is no proof of its own delivery (decode/acked.rs).
    pub fn sent_before(&mut self, seg: &TcpSegment) -> bool {
        let Lookup::Existing(i) = self.table.lookup(&FlowKey::of(seg)) else { return false };
        let c = &self.conns[i as usize];
        let side = &c.sides[c.dir_of(seg)];
        let Some(base) = side.seq.base() else { return false };
        let beyond = |rel: Option<i64>| rel.is_some_and(|r| crate::analysis::track::sequence::gt_seq(base.wrapping_add(r as u32), seg.seq));
        beyond(side.sent_high) || beyond(side.peer_ack)
    }

    /// The capture clock's tick so far, s (0: not known yet; clock.rs).
    pub fn tick_seconds(&self) -> f64 {
        self.clock.resolution_ns().map_or(0.0, |ns| ns as f64 / 1e9)
    }

    pub fn new(options: AnalysisOptions) -> Self {
        Analyzer {
            options,
            table: ConnTable::default(),
            conns: Vec::new(),
            limits: Limits::new(&options),
            duplicates: DuplicateFilter::default(),
            rewritten: RewrittenCopies::default(),
            held: None,
            source_ids: SourceIds::default(),
            clock: ClockTicks::default(),
            radio_samples: 0,
            syn_ack_ids: Default::default(),
            mptcp: None,
            tcp_fragments: (0, 0),
            icmp: Vec::new(),
            repeated_frames: 0,
            untimed: Default::default(),
            interfaces: 0,
            segments: (0, 0),
            set_aside: Default::default(),
            app: Default::default(),
            ts_checks: Default::default(),
            keep_rows: true,
            offload: Default::default(),
            quiet: Default::default(),
        }
    }

    /// `finish` will keep no chart rows: `Analysis::stores`, `radio` and
    /// `window_limited` stay empty, so views and columns answer nothing, while every
    /// summary (the report, its rows) is the same. Each connection's rows are freed as
    /// soon as it is summarised instead of being kept for the charts: ~0.3 KB per short
    /// connection less at the end, and room the next summaries reuse (bench/README.md).
    pub fn rows_only(&mut self) {
        self.keep_rows = false;
    }

    /// Counts a frame's checksum towards the capture's host (capture_host.rs): every TCP
    /// frame the session decodes, before a shard filter or the corrupt-frame check.
    pub fn note_checksum(&mut self, seg: &TcpSegment) {
        let initial = seg.frame_id.ip_ttl.map_or(true, |t| crate::analysis::timing::vantage::INITIAL_TTLS.contains(&t));
        self.offload.observe(seg.src, seg.meta.checksum, seg.payload_len, initial);
    }

    /// `file_t0_ns`: timestamp of the first packet of the file (any protocol); all
    /// output times are relative to it.
    pub fn push(&mut self, seg: &TcpSegment, file_t0_ns: i64) {
        // A frame captured twice is one packet (duplicates.rs): never a retransmission,
        // a duplicate ACK or a stall.
        if self.duplicates.is_copy(seg) {
            // A MAC retry is still airtime: the Wi-Fi strip counts it (radio.rs).
            if let Lookup::Existing(i) = self.table.lookup(&FlowKey::of(seg)) {
                self.log_radio(i as usize, seg, file_t0_ns);
            }
            return;
        }
        // The same datagram from the far side of a sequence-rewriting box (rewritten_copies.rs):
        // a held segment is analysed in its place unless `seg` shows it was such a copy.
        let held = self.held.take();
        let (verdict, held_is_copy) = self.rewritten.check(seg, held.as_ref().map(|h| &*h.0));
        if let Some((h, t0)) = held.filter(|_| !held_is_copy) {
            self.analyse(&h, t0);
        }
        match verdict {
            Verdict::Copy => {}
            Verdict::Hold => self.held = Some((Box::new(seg.clone()), file_t0_ns)),
            Verdict::Analyse => self.analyse(seg, file_t0_ns),
        }
    }

    /// Analyses one segment that is no copy.
    fn analyse(&mut self, seg: &TcpSegment, file_t0_ns: i64) {
        self.rewritten.analysed(seg);
        self.clock.add(seg.ts_ns);
        self.segments.0 += 1;
        self.segments.1 += u64::from(seg.payload_len == 0);
        let key = FlowKey::of(seg);
        let index = match self.table.lookup(&key) {
            Lookup::Existing(i) => {
                let c = &self.conns[i as usize];
                let d = c.dir_of(seg);
                if starts_new_connection(seg, c.sides[d].seq.base()) {
                    self.open(key, seg, file_t0_ns)
                } else {
                    Some(i)
                }
            }
            Lookup::New => self.open(key, seg, file_t0_ns),
        };
        let Some(index) = index else {
            return; // beyond max_connections: counted by `limits`, not tracked
        };
        let store = self.limits.take_packet();
        let source_last = match (seg.src, seg.frame_id.ip_id) {
            (IpAddr::V4(a), Some(id)) => self.source_ids.note(u32::from(a), id, index),
            _ => SourceLast::Unknown,
        };
        let conn = &mut self.conns[index as usize];
        if incarnation::foreign(conn, seg) {
            return self.set_aside.note(index, seg.packet_index + 1);
        }
        conn.process = conn.process.or(seg.meta.process);
        self.syn_ack_ids.note(index, seg);
        conn.push(seg, seg.ts_ns.wrapping_sub(file_t0_ns), store, source_last);
        self.ts_checks.note(index as usize, conn.dir_of(seg), seg, seg.ts_ns.wrapping_sub(file_t0_ns));
        if self.mptcp.is_some() || seg.mptcp.is_some() {
            let d = conn.dir_of(seg) as u8;
            self.mptcp.get_or_insert_with(Box::default).push(index, d, seg, seg.ts_ns.wrapping_sub(file_t0_ns));
        }
        if seg.meta.app.0 != 0 {
            let d = conn.dir_of(seg) as u8;
            self.app.note(index, d, seg.meta.app, secs(seg.ts_ns.wrapping_sub(file_t0_ns)), u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX));
        }
        self.log_radio(index as usize, seg, file_t0_ns);
    }

    /// Keep the frame's radio facts, up to `MAX_RADIO_SAMPLES` per capture.
    fn log_radio(&mut self, index: usize, seg: &TcpSegment, file_t0_ns: i64) {
        let (Some(r), Some(conn)) = (&seg.meta.radio, self.conns.get_mut(index)) else { return };
        if self.radio_samples < MAX_RADIO_SAMPLES {
            self.radio_samples += 1;
            let d = conn.dir_of(seg) as u8;
            conn.radio.get_or_insert_with(Box::default).push(secs(seg.ts_ns.wrapping_sub(file_t0_ns)), d, r);
        }
    }

    fn open(&mut self, key: FlowKey, seg: &TcpSegment, file_t0_ns: i64) -> Option<u32> {
        if !self.limits.take_connection() {
            return None;
        }
        self.quiet.opening(&mut self.conns, secs(seg.ts_ns.wrapping_sub(file_t0_ns)));
        let index = self.conns.len() as u32;
        self.conns.push(Box::new(Conn::new(seg, self.options.bin_seconds)));
        self.table.insert(key, index);
        Some(index)
    }

    pub fn finish(mut self) -> Analysis {
        if let Some((h, t0)) = self.held.take() {
            self.analyse(&h, t0);
        }
        // The lookup table is not needed any more: free it before the summaries' table
        // is reserved (the read state is at its largest here: issue 43 item 4).
        drop(self.table);
        let mut analysis = Analysis::default();
        analysis.connections.reserve_exact(self.conns.len());
        if self.keep_rows {
            analysis.stores.reserve_exact(self.conns.len());
            analysis.radio.reserve_exact(self.conns.len());
        }
        let capture = CaptureFacts {
            duplicate_frames: self.duplicates.duplicates + self.rewritten.copies + self.repeated_frames,
            repeated_frames: self.repeated_frames,
            rewritten_copies: self.rewritten.copies,
            wifi_retries: self.duplicates.wifi_retries,
            offload_pieces: self.duplicates.offload.pieces,
            forwarded: self.duplicates.forwarded,
            timestamp_resolution_ns: self.clock.resolution_ns(),
            tcp_segments: self.segments.0,
            empty_segments: self.segments.1,
        };
        let hosts = self.offload.finish();
        let mut scratch = summary::Scratch::default();
        // The coarse clocks connections showed (clock.rs): a short connection may take one.
        let padding: u64 = self.conns.iter().map(|c| u64::from(c.padding_segments())).sum();
        let shown = clock::shown_coarse_ticks(self.conns.iter().map(|c| &c.ticks), capture.timestamp_resolution_ns);
        let mut icmp = crate::analysis::verdict::icmp_errors::assign(&self.icmp, &mut self.conns.iter().map(|c| (c.endpoints, c.first_t)));
        // The hosts' TS clocks contradict the capture's both ways: its times are not the
        // packets'. Judged per connection, then for the interface: one clock stamps all.
        let mut proofs: Vec<_> = (0..self.conns.len()).map(|_| None).collect();
        for (id, conn) in self.conns.iter().enumerate() {
            let own_tick_ns = clock::own_tick_ns(&conn.ticks, capture.timestamp_resolution_ns, &shown);
            let margin_ns = crate::analysis::timing::ts_clock_check::margin_ns(own_tick_ns, capture.timestamp_resolution_ns);
            proofs[id] = self.ts_checks.take(id).and_then(|k| k.verdict(margin_ns)).map(|k| (k, crate::analysis::track::connections::endpoint_name(conn.endpoints[k.host].0, conn.endpoints[k.host].1)));
        }
        let batched = broken_clock::batched_interface(&proofs, self.interfaces);
        let mut told = (0usize, 0u64);
        for (id, mut conn) in self.conns.into_iter().enumerate() {
            let radio = conn.radio.take();
            let own_tick_ns = clock::own_tick_ns(&conn.ticks, capture.timestamp_resolution_ns, &shown);
            let untimed = self.untimed.of(conn.endpoints);
            // No re-send is a back-to-back copy by a clock that does not follow the packets (loss/back_to_back.rs).
            if batched.is_some() || proofs[id].is_some() {
                conn.sides.iter_mut().filter_map(|s| s.kinds.as_mut()).for_each(|k| crate::analysis::loss::back_to_back::all_apart(&mut k.hole_reported_before));
            }
            let (mut summary, store, spans) = summary::summarize(id as u32, *conn, &self.options, (&capture, &hosts), own_tick_ns, &mut scratch, icmp.remove(&id).unwrap_or_default());
            broken_clock::apply(&mut summary, untimed); // too many packets without a usable time: no limit
            broken_clock::apply_ts_check(&mut summary, proofs[id].as_ref().map(|p| &p.0));
            if let Some(b) = &batched {
                broken_clock::apply_same_clock(&mut summary, b);
                if broken_clock::is_clock_broken(&summary) {
                    told = (told.0 + 1, told.1 + summary.packets);
                }
            }
            analysis.connections.push(summary);
            if self.keep_rows {
                analysis.radio.push(radio.map(|r| *r).unwrap_or_default());
                analysis.stores.push(store);
                analysis.window_limited.extend(spans);
            }
        }
        summary::set_base_rtts(&mut analysis.connections);
        // The relay chain first: where the capture holds the far leg (taken on the relay or
        // proxy itself) it names that leg's frames, and the proxy tunnel's generic rewrite
        // (app_facts/proxy.rs) then finds no "itself took" sentence left to rewrite (review AE W1:
        // nDPI http_connect.pcap once lost "over connection 1 … frame 16 → frame 24").
        crate::analysis::verdict::relay_chain::attach(&mut analysis.connections, &analysis.stores); // a relay's answer waits on its far leg
        analysis.linked_text = self.app.attach(&mut analysis.connections); // FTP transfers, SMTP PIPELINING, proxy tunnels (app_facts)
        crate::analysis::verdict::terminating_proxy::attach(&mut analysis.connections, &self.syn_ack_ids); // one box answered for several servers
        if let Some(tracker) = self.mptcp {
            let cs = &analysis.connections;
            let at = |i: u32| cs.get(i as usize);
            let (groups, of) = tracker.finish(
                &|i| at(i).map_or([0; 2], |c| [c.directions[0].payload_bytes, c.directions[1].payload_bytes]),
                &|i| at(i).map_or((0.0, 0.0), |c| (c.start, c.end)),
                &|i| at(i).map_or_else(Default::default, |c| c.endpoints.clone()),
            );
            for (connection, group) in of {
                if let Some(c) = analysis.connections.get_mut(connection as usize) {
                    c.mptcp = Some(group);
                }
            }
            // A refused or unanswered MP_JOIN is not a closed port or a dead server.
            for g in &groups {
                for s in g.subflows.iter().filter(|s| s.status.join_not_established()) {
                    if let Some(c) = analysis.connections.get_mut(s.connection as usize) {
                        let reason = s.reset_reason.map(crate::analysis::track::mptcp::reset_reason);
                        let refused = s.status == crate::analysis::track::mptcp::SubflowStatus::JoinRefused;
                        crate::analysis::verdict::diagnosis::join_not_established(c, g.id, refused, reason);
                    }
                }
            }
            // A subflow's waits and rate are part of its MPTCP connection's (mptcp_subflow.rs).
            crate::analysis::verdict::mptcp_subflow::attach(&mut analysis.connections, &groups);
            analysis.mptcp = groups;
        }
        analysis.warnings = self.limits.warnings();
        let own_ticks: Vec<(u32, f64)> = analysis.connections.iter().filter_map(|c| Some((c.id, c.clock_tick_ms?))).collect();
        analysis.warnings.extend(capture.warnings_with(&own_ticks));
        analysis.warnings.extend(crate::analysis::verdict::one_direction::warning(&analysis.connections));
        analysis.warnings.extend(crate::analysis::verdict::warnings::capture_loss_warning(&analysis.connections, self.tcp_fragments));
        analysis.warnings.extend(crate::analysis::verdict::warnings::padding_warning(padding));
        analysis.warnings.extend(crate::analysis::verdict::warnings::two_senders_warning(&analysis.connections));
        analysis.warnings.extend(self.set_aside.warning());
        analysis.warnings.extend(batched.map(|b| broken_clock::batched_warning(&b, told.0, told.1)));
        analysis.capture = capture;
        analysis
    }
}

#[cfg(test)]
#[path = "analyzer_tests.rs"]
mod tests;
