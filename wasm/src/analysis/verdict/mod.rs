//! The verdict: where the data direction's time went (diagnosis_shares.rs), the
//! periods that changed regime (diagnosis_episodes.rs), what removing each limit would
//! have saved (savings.rs), a connection captured one way only (one_direction.rs), the
//! headline (diagnosis.rs) and its sentences (diagnosis/: phrases.rs, path_words.rs,
//! wait_words.rs), the warnings read from the whole report
//! (warnings.rs), and the auditor that checks every claim against the report
//! (audit.rs). Reads the report (report.rs); only run/ comes after it.

pub mod app_facts;
pub mod audit;
mod audit_timer;
mod audit_turn_blame;
mod audit_transfer_start;
pub mod blind_capture;
pub mod diagnosis;
pub mod diagnosis_episodes;
pub mod diagnosis_shares;
pub mod first_byte;
pub mod icmp_errors;
pub mod mptcp_subflow;
pub mod no_backoff;
pub mod broken_clock;
pub mod one_direction;
pub mod peer_silent;
pub mod pmtu_resends;
pub mod relay_chain;
pub mod relayed_waits;
pub mod savings;
pub mod split_proxy;
pub mod terminating_proxy;
pub mod transfer_head;
pub mod transfer_tail;
pub mod upstream_queue;
pub mod warnings;
pub mod window_unjudged;
