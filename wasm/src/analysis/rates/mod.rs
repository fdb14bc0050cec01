//! How fast: payload per time bin and its summary (throughput.rs), the rate the path
//! delivered (delivered.rs), and what a window allows over a round trip (bdp.rs).

pub mod bdp;
pub mod delivered;
pub mod throughput;
