//! STUB (owned by the analysis-core work): feeds segments into connections.
use super::{Analysis, AnalysisOptions};
use crate::decode::TcpSegment;

pub struct Analyzer {
    options: AnalysisOptions,
}

impl Analyzer {
    pub fn new(options: AnalysisOptions) -> Self {
        Analyzer { options }
    }
    /// `file_t0_ns`: timestamp of the first packet of the file (any protocol); all
    /// output times are relative to it.
    pub fn push(&mut self, seg: &TcpSegment, file_t0_ns: i64) {
        let _ = (seg, file_t0_ns, &self.options);
    }
    pub fn finish(self) -> Analysis {
        Analysis::default()
    }
}
