//! TCP analysis: from decoded segments to the report (docs/ANALYSIS.md defines every
//! number; definitions follow DESIGN.md, which follows Wireshark's TCP analysis).
//!
//! Rooms, in the order of the flow; each uses only the rooms above it
//! (tests/analysis_rooms.rs checks it):
//! - `format.rs`: numbers in words, shared by every room;
//! - `capture/`: the recording itself (time order, duplicate frames, clock, radio,
//!   limits, options);
//! - `rows/`: what is kept of each packet (chart columns, compact store);
//! - `loss/`: retransmission kinds, bytes the capture missed, datagrams lost before it;
//! - `timing/`: RTT samples, round trips, vantage, the data sender's clock and view;
//! - `rates/`: payload per bin, the rate delivered, bandwidth-delay arithmetic;
//! - `track/`: one connection packet by packet (`Conn::push`), running the loss and
//!   timing trackers and writing the rows;
//! - `stalls/`: gaps in the data and their causes;
//! - `report.rs`: the report's shapes, filled by the rooms above;
//! - `verdict/`: shares, episodes, savings and the headline, read from the report;
//! - `run/`: the analyzer (each packet to its connection) and the end-of-capture
//!   summary that drive all of the above.
//!
//! Below, the modules and types keep the paths they had before the rooms
//! (`crate::analysis::stalls`, `crate::analysis::Stall`, ...) for code outside analysis/.

pub mod capture;
pub mod format;
pub mod loss;
pub mod rates;
pub mod rows;
pub mod report;
pub mod run;
pub mod stalls;
pub mod timing;
pub mod track;
pub mod verdict;

// The modules under their paths before the rooms (crate::analysis::NAME).
pub use capture::{clock, duplicates, limits, radio, timeline};
pub use format as diagnosis_format;
pub use loss::{capture_loss, retrans_kinds};
pub use rates::{bdp, delivered, throughput};
pub use rows::{columns, store};
pub use run::{analyzer, opening_view};
pub use stalls::{delayed_ack, far_part, receiver_silent, unseen_timeout};
pub use timing::{round_trips, rtt, sender_flight, sender_view, vantage};
pub use track::{connections, ecn, ending, flags, handshake, mptcp, sequence, window};
pub use verdict::{audit, diagnosis, diagnosis_episodes, diagnosis_shares, one_direction, savings};

// The types under their paths before the rooms (crate::analysis::Name).
pub use capture::facts::{CaptureFacts, PAYLOAD_ONLY_MIN};
pub use capture::limits::AnalysisWarning;
pub use capture::options::AnalysisOptions;
pub use capture::radio::RadioLog;
pub use rates::throughput::ThroughputSummary;
pub use report::{
    Analysis, ConnectionSummary, Diagnosis, DiagnosisShares, DirectionSummary, Episode, Evidence, PeerSilent, RttSummary, TransferEnd, EPISODE_KINDS, LIMITS, VERDICTS,
};
pub use rows::columns::ConnectionColumns;
pub use rows::store::ConnStore;
pub use run::analyzer::Analyzer;
pub use stalls::cause::{Stall, StallCause, STALL_CAUSES};
pub use timing::vantage::Vantage;
pub use track::window::MinMax;
