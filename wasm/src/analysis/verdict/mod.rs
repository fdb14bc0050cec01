//! The verdict: where the data direction's time went (diagnosis_shares.rs), the
//! periods that changed regime (diagnosis_episodes.rs), what removing each limit would
//! have saved (savings.rs), a connection captured one way only (one_direction.rs), the
//! headline and its sentences (diagnosis.rs), and the auditor that checks every claim
//! against the report (audit.rs). Reads the summaries; last room before the report.

pub mod audit;
pub mod diagnosis;
pub mod diagnosis_episodes;
pub mod diagnosis_shares;
pub mod one_direction;
pub mod savings;
