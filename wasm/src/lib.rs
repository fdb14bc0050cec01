//! tcpscope-core: bytes of a pcap/pcapng capture in, TCP analysis out.
//!
//! Pure Rust, no I/O: `decode` turns capture bytes (pushed in chunks of any size)
//! into TCP segments, `analysis` turns segments into per-connection statistics and
//! chart columns, `report` renders the schema-versioned JSON summary shared by the
//! CLI and the web app. `bindings` (wasm32 only) is the one file that knows
//! wasm-bindgen.

pub mod analysis;
pub mod answer;
pub mod boundary;
pub mod compact_row;
pub mod decode;
pub mod error;
pub mod fxhash;
pub mod inflate;
pub(crate) mod lean;
pub mod report;
pub mod session;
pub mod shard;
pub mod share;
pub mod slice;
pub mod synth;
pub mod table;
pub mod twin;
pub mod view;
pub mod warm_up;

#[cfg(target_arch = "wasm32")]
mod bindings;
#[cfg(target_arch = "wasm32")]
mod heap;
#[cfg(target_arch = "wasm32")]
mod shard_bindings;

/// Version of the JSON summary and of the column layout handed to JavaScript.
/// Bump when a field is renamed or changes meaning (adding fields does not bump it).
pub const SCHEMA_VERSION: u32 = 1;
