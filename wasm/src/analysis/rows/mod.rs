//! What the analysis keeps of each packet: the chart rows as public columns
//! (columns.rs, the contract with JavaScript) and their compact store (store.rs over
//! store_log.rs). Every later room reads packets as these rows.

pub mod columns;
pub mod store;
pub(super) mod store_log;
