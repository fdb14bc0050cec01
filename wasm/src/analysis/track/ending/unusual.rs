//! The parts of a connection's closing that few connections show (ending.rs `Closing`):
//! a TLS alert, and the resets and FINs that ended nothing (`NotTheEnd`). Kept in one
//! box made at the first of them, so a connection that closes with FINs pays one
//! pointer for them instead of 208 B (issue 43: 100,000 short connections each make a
//! `Closing`; bench/README.md "Session 38").

use super::{AlertMark, Early};

#[derive(Clone, Debug, Default)]
pub(super) struct Unusual {
    pub alert: [Option<AlertMark>; 2],
    /// Resets each direction sent before the SYN/ACK, and the first of them.
    pub early_resets: [u32; 2],
    pub first_early_reset: Option<Early>,
    /// Of those, the SYN receiver's that did not acknowledge the SYN, and the first.
    pub unacceptable_resets: [u32; 2],
    pub first_unacceptable: Option<Early>,
    /// Resets after which their sender sent new data, and the first.
    pub data_after_resets: [u32; 2],
    pub first_data_after_reset: Option<Early>,
    /// FINs the SYN's receiver sent before its SYN/ACK, and the first.
    pub early_fins: [u32; 2],
    pub first_early_fin: Option<Early>,
}

/// What a closing without any of them reads.
pub(super) static NONE: Unusual = Unusual {
    alert: [None, None],
    early_resets: [0; 2],
    first_early_reset: None,
    unacceptable_resets: [0; 2],
    first_unacceptable: None,
    data_after_resets: [0; 2],
    first_data_after_reset: None,
    early_fins: [0; 2],
    first_early_fin: None,
};
