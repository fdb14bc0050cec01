//! A decoding session: bytes pushed in chunks → decoder → analyzer → report.
//! This is the whole pipeline the CLI and the browser worker drive (through
//! `bindings`), with no I/O of its own.

use crate::analysis::timeline::Timeline;
use crate::analysis::{Analysis, AnalysisOptions, Analyzer};
use crate::decode::acked::{AckedEvidence, Fate};
use crate::decode::checksum::{Checksum, ChecksumEvidence};
use crate::decode::{CaptureDecoder, Decoded, WarningKind};
use crate::error::{DecodeError, ErrorKind, Layer};
use crate::inflate::inflate_limit;
use crate::report::Report;
use crate::shard::ShardFilter;

pub struct Session {
    decoder: CaptureDecoder,
    analyzer: Option<Analyzer>,
    analysis: Option<Analysis>,
    options: AnalysisOptions,
    file_t0_ns: Option<i64>,
    /// Packets are analysed in time order, at times that never go back
    /// (analysis/capture/timeline.rs): it holds them for a bounded window.
    timeline: Timeline<Decoded>,
    /// Checksums by source, to tell a corrupted frame from an offloaded sender's
    /// (decode/checksum.rs); fed as packets are decoded, asked as they are released,
    /// so the reordering window after a frame counts as evidence too.
    /// And failing frames watched for their peer's acknowledgement (decode/acked.rs).
    checks: Checks,
    error: Option<DecodeError>,
    /// Bytes handed to `push_inflated` so far (inflated from gzip by the caller).
    inflated: u64,
    /// The latest analysis time handed to the analyzer, ns since the file's first
    /// packet: the timeline releases packets at times that never go back, so every
    /// packet still to come is at this time or later (the progressive view's settled
    /// bins, view/partial.rs).
    released_ns: Option<i64>,
    /// The connections this session analyses when it is one of N shards (shard.rs).
    shard: Option<ShardFilter>,
}

/// The analysis while the capture is still being read (issue 41, view/partial.rs).
#[derive(Clone, Copy)]
pub struct Running<'a> {
    pub analyzer: &'a Analyzer,
    /// Every packet still to come is at this time (s since the file's first packet)
    /// or later; None before the first packet reached the analysis.
    pub settled_t: Option<f64>,
    /// The newest packet time decoded so far (s since the file's first packet), held
    /// for sorting or analysed: where the decoder is in capture time, up to the
    /// timeline's window (2 s or 65,536 packets) ahead of `settled_t`.
    pub decoded_t: Option<f64>,
}

/// The checksum evidence by source and the peer's acknowledgements of failing frames.
type Checks = (ChecksumEvidence, AckedEvidence);

/// Hand one packet to the analysis at its analysis time `t_ns`; the first packet's
/// time is the origin of every output time. A segment judged corrupt (a failing
/// checksum, decode/checksum.rs) is counted there and not analysed: it never reached
/// its receiver's TCP. By reference: a `Decoded` is 176 bytes, and moving each one
/// into and out of the hold cost ≈ 10 % of the native analysis (bench/README.md,
/// session 11).
#[inline]
#[allow(clippy::too_many_arguments)]
fn deliver(analyzer: &mut Analyzer, file_t0_ns: &mut Option<i64>, released_ns: &mut Option<i64>, checks: &mut Checks, shard: &mut Option<ShardFilter>, packet: &mut Decoded, t_ns: i64, at_end: bool) {
    let origin = *file_t0_ns.get_or_insert(t_ns);
    *released_ns = Some(t_ns.wrapping_sub(origin));
    if let Decoded::Tcp(segment) = packet {
        analyzer.note_checksum(segment); // every shard counts every frame (capture_host.rs)
        // Another shard's connection (shard.rs): counted, not analysed here.
        if shard.as_mut().is_some_and(|f| !f.take(segment, t_ns)) {
            return;
        }
        if segment.meta.checksum == Checksum::Bad {
            // Acknowledged by the peer, its bytes in no other frame: delivered; at the
            // capture's end with the peer silent after it: not known (acked.rs).
            let fate = checks.1.fate(segment, at_end);
            if checks.0.suspect(segment.src, segment.meta.checksum) {
                if fate != Fate::Unacknowledged && !analyzer.sent_before(segment) {
                    *(if fate == Fate::Acknowledged { &mut checks.1.delivered } else { &mut checks.1.unanswered }) += 1;
                } else {
                    checks.0.corrupt += 1;
                    return;
                }
            }
        }
        segment.ts_ns = t_ns;
        analyzer.push(segment, origin);
        if let Some(f) = shard {
            f.opened(analyzer.connection_count());
        }
    }
}

impl Session {
    pub fn new(options: AnalysisOptions) -> Self {
        Session {
            decoder: CaptureDecoder::new(),
            analyzer: Some(Analyzer::new(options)),
            analysis: None,
            options,
            file_t0_ns: None,
            timeline: Timeline::default(),
            checks: Checks::default(),
            error: None,
            inflated: 0,
            released_ns: None,
            shard: None,
        }
    }

    /// Analyse only the connections of shard `index` of `count` (shard.rs); before the
    /// first `push`.
    pub fn shard(&mut self, index: u32, count: u32) {
        self.shard = Some(ShardFilter::new(index, count));
    }

    /// This shard's account for `shard::plan` (after `finish`); None when not a shard.
    pub fn shard_facts(&self) -> Option<crate::shard::Facts> {
        let mut blockers = Vec::new();
        if self.checks.0.corrupt + self.checks.1.delivered + self.checks.1.unanswered > 0 {
            blockers.push("checksum verdicts");
        }
        if !self.decoder.icmp_quotes().is_empty() {
            blockers.push("ICMP errors");
        }
        Some(self.shard.as_ref()?.facts(self.analysis.as_ref(), &blockers))
    }

    /// Gives connection `i` the id `ids[i]` (its id in the merged report, `shard::plan`).
    pub fn renumber(&mut self, ids: &[u32]) {
        if let Some(a) = self.analysis.as_mut() {
            for (c, &id) in a.connections.iter_mut().zip(ids) {
                c.id = id;
            }
        }
    }

    /// Feed the next chunk of the file. Returns false once a fatal error stopped
    /// decoding (everything decoded before it is kept and will be analysed).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        if self.error.is_some() || self.analysis.is_some() {
            return false;
        }
        let analyzer = self.analyzer.as_mut().expect("analyzer present until finish");
        let (t0, released, timeline, checks, shard) = (&mut self.file_t0_ns, &mut self.released_ns, &mut self.timeline, &mut self.checks, &mut self.shard);
        let result = self.decoder.push(chunk, &mut |packet| {
            if let Decoded::Tcp(s) = &packet {
                checks.0.observe(s.src, s.meta.checksum);
                checks.1.see(s);
                if checks.0.may_judge(s.src, s.meta.checksum) {
                    checks.1.watch(s);
                }
            }
            timeline.push(packet, &mut |p, t| deliver(analyzer, t0, released, checks, shard, p, t, false));
        });
        if let Err(e) = result {
            self.error = Some(e);
            return false;
        }
        true
    }

    /// `push` for the inflated bytes of a gzip-compressed capture, `compressed` being
    /// the compressed bytes read so far: input stops with a `too-large` error (the
    /// chunk is not decoded, everything before it is kept) once the inflated total
    /// breaks a cap of inflate.rs.
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: u64) -> bool {
        if self.error.is_some() || self.analysis.is_some() {
            return false;
        }
        let inflated = self.inflated + chunk.len() as u64;
        if let Some(message) = inflate_limit(compressed, inflated) {
            let at = Some(self.bytes_consumed());
            self.error = Some(DecodeError::new(Layer::Capture, ErrorKind::TooLarge, None, at, message));
            return false;
        }
        self.inflated = inflated;
        self.push(chunk)
    }

    /// `finish` for a caller that asks only for the report and its rows (the CLI's
    /// `analyze`): no chart rows are kept (run/analyzer.rs `rows_only`). Idempotent.
    pub fn finish_rows_only(&mut self) {
        if let Some(analyzer) = self.analyzer.as_mut() {
            analyzer.rows_only();
        }
        self.finish();
    }

    /// End of input: finish decoding (a record cut short becomes the error) and run
    /// the end-of-capture analysis. Idempotent.
    pub fn finish(&mut self) {
        if self.analysis.is_some() {
            return;
        }
        if self.error.is_none() {
            if let Err(e) = self.decoder.finish() {
                self.error = Some(e);
            }
        }
        let mut analyzer = self.analyzer.take().expect("analyzer present until finish");
        let (t0, released, checks, shard) = (&mut self.file_t0_ns, &mut self.released_ns, &mut self.checks, &mut self.shard);
        self.timeline.finish(&mut |p, t| deliver(&mut analyzer, t0, released, checks, shard, p, t, true));
        let info = self.decoder.info();
        analyzer.repeated_frames = self.timeline.repeated();
        analyzer.untimed = self.timeline.take_untimed();
        analyzer.interfaces = info.interfaces;
        analyzer.tcp_fragments = (info.warnings.get(&crate::decode::WarningKind::TcpFragment).copied().unwrap_or(0), info.tcp_fragment_bytes);
        analyzer.icmp = self.decoder.icmp_quotes().iter().map(|q| (crate::analysis::store::secs(q.ts_ns.wrapping_sub(self.file_t0_ns.unwrap_or(q.ts_ns))), *q)).collect();
        let mut analysis = analyzer.finish();
        let processes = self.decoder.processes();
        for c in &mut analysis.connections {
            c.process = c.process_index.and_then(|i| processes.get(i)).cloned();
        }
        self.analysis = Some(analysis);
    }

    pub fn bytes_consumed(&self) -> u64 {
        self.decoder.info().bytes_consumed
    }

    pub fn packets(&self) -> u64 {
        self.decoder.info().packets
    }

    pub fn error(&self) -> Option<&DecodeError> {
        self.error.as_ref()
    }

    pub fn options(&self) -> AnalysisOptions {
        self.options
    }

    /// The analysis so far, while the capture is read; None after `finish` (then
    /// `analysis` holds the final answers).
    pub fn running(&self) -> Option<Running<'_>> {
        let analyzer = self.analyzer.as_ref()?;
        let decoded_t = self.file_t0_ns.zip(self.timeline.newest()).map(|(t0, n)| crate::analysis::store::secs(n.wrapping_sub(t0)));
        Some(Running { analyzer, settled_t: self.released_ns.map(crate::analysis::store::secs), decoded_t })
    }

    /// The analysis; None before `finish`.
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// The schema-1 summary (what `tcpscope analyze --json` prints). Call after `finish`.
    pub fn report(&self) -> Report<'_> {
        // The capture's span on the analysis timeline: never negative, and one bad
        // timestamp does not stretch it (analysis/capture/timeline.rs).
        let mut info = self.decoder.info().clone();
        info.first_ts_ns = self.file_t0_ns;
        info.last_ts_ns = self.timeline.latest();
        // The session's own per-packet counts, beside the decoder's.
        let (jumps, largest_jump) = self.timeline.forward_jumps();
        for (kind, count) in [
            (WarningKind::TimeOrderClamped, self.timeline.unplaced()),
            (WarningKind::TimeJumpedForward, jumps),
            (WarningKind::BadTcpChecksum, self.checks.0.corrupt),
            (WarningKind::AckedBadChecksum, self.checks.1.delivered),
            (WarningKind::UnansweredBadChecksum, self.checks.1.unanswered),
        ] {
            if count > 0 {
                info.warnings.insert(kind, count);
            }
        }
        info.largest_time_jump = largest_jump.map(|j| (j.frame, j.jump_ns));
        Report::new(&info, self.error.as_ref(), self.analysis.as_ref())
    }
}

/// Decode and analyse a whole in-memory capture (tests, native tools).
pub fn analyze_bytes(bytes: &[u8], options: AnalysisOptions, chunk_size: usize) -> Session {
    let mut session = Session::new(options);
    for chunk in bytes.chunks(chunk_size.max(1)) {
        if !session.push(chunk) {
            break;
        }
    }
    session.finish();
    session
}
