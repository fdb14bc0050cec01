//! A decoding session: bytes pushed in chunks → decoder → analyzer → report.
//! This is the whole pipeline the CLI and the browser worker drive (through
//! `bindings`), with no I/O of its own.

use crate::analysis::{Analysis, AnalysisOptions, Analyzer};
use crate::decode::{CaptureDecoder, Decoded};
use crate::error::DecodeError;
use crate::report::Report;

pub struct Session {
    decoder: CaptureDecoder,
    analyzer: Option<Analyzer>,
    analysis: Option<Analysis>,
    options: AnalysisOptions,
    file_t0_ns: Option<i64>,
    error: Option<DecodeError>,
}

impl Session {
    pub fn new(options: AnalysisOptions) -> Self {
        Session {
            decoder: CaptureDecoder::new(),
            analyzer: Some(Analyzer::new(options)),
            analysis: None,
            options,
            file_t0_ns: None,
            error: None,
        }
    }

    /// Feed the next chunk of the file. Returns false once a fatal error stopped
    /// decoding (everything decoded before it is kept and will be analysed).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        if self.error.is_some() || self.analysis.is_some() {
            return false;
        }
        let analyzer = self.analyzer.as_mut().expect("analyzer present until finish");
        let t0 = &mut self.file_t0_ns;
        let result = self.decoder.push(chunk, &mut |packet| {
            let ts = match &packet {
                Decoded::Tcp(s) => s.ts_ns,
                Decoded::Other { ts_ns, .. } => *ts_ns,
            };
            let origin = *t0.get_or_insert(ts);
            if let Decoded::Tcp(segment) = &packet {
                analyzer.push(segment, origin);
            }
        });
        if let Err(e) = result {
            self.error = Some(e);
            return false;
        }
        true
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
        let analyzer = self.analyzer.take().expect("analyzer present until finish");
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

    /// The analysis; None before `finish`.
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// The schema-1 summary (what `tcpscope analyze --json` prints). Call after `finish`.
    pub fn report(&self) -> Report<'_> {
        Report::new(self.decoder.info(), self.error.as_ref(), self.analysis.as_ref())
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
