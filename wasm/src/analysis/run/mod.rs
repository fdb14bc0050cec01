//! The pipeline run: the analyzer takes each packet through the rooms (analyzer.rs) and,
//! at the end of the capture, the summary computes each connection's report from its
//! rows (summary.rs), with the range the charts open on (opening_view.rs).

pub mod analyzer;
pub mod opening_view;
mod quiet;
pub(crate) mod summary;
