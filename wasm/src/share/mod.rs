//! Share links that hold view answers, not packets (issue 15; DESIGN.md
//! "Architecture (second round)"). Pure Rust, no wasm-bindgen: the CLI, the
//! browser worker and the tests make and read links with this same code.
//!
//! - build.rs: the live view engine's answers for the shared view → a snapshot that
//!   fits a link (≤ 8 KB);
//! - answers.rs: one answer reduced to the link's pixel grid;
//! - answer_bytes.rs: a stored answer written and read back (validated);
//! - format.rs: the versioned container and its one validating parser;
//! - meta.rs: range checks of the report and summary carried along;
//! - session.rs: a snapshot as a view source, answering `ViewRequest`s;
//! - legacy.rs: first-round per-packet snapshots (format 1), still opened;
//! - twin.rs: a compare link's merged view of two vantage points (`twin-snap=`), with
//!   packed.rs (any JSON value in compact bytes) and resample.rs (its lists cut to a link).

pub mod answer_bytes;
pub mod answers;
pub mod build;
pub mod bytes;
pub mod coded;
pub mod coder;
pub mod format;
pub mod legacy;
pub mod meta;
pub mod packed;
pub mod resample;
pub mod session;
pub mod twin;

pub use build::{build, Built, ShareSpec};
pub use session::SnapshotSession;

/// `#<view>&snap=<base64url>`: the fragment a link carries (never sent to a server).
pub fn link_fragment(view: &str, snapshot: &[u8]) -> String {
    let snap = bytes::to_base64url(snapshot);
    if view.is_empty() {
        format!("snap={snap}")
    } else {
        format!("{view}&snap={snap}")
    }
}
