//! The reset that ended a connection so far, boxed at the first reset that counts
//! (issue 43: most connections end with FINs, and every one that closes makes a
//! `Closing`; 8 B there instead of 96).

use super::{Closing, Mark};

/// The reset (by, when, after what, the end of its sequence range (relative: data beyond
/// it made it no end), when that data came) and, at it, its peer's highest byte sent and
/// the resets its sender had sent (after_reset.rs).
#[derive(Clone, Copy, Debug)]
pub(super) struct ResetEnd {
    pub(super) end: (u8, Mark, &'static str, Option<i64>, Option<i64>),
    pub(super) mark: (Option<i64>, u32),
}

impl Closing {
    pub(super) fn reset_end(&self) -> Option<(u8, Mark, &'static str, Option<i64>, Option<i64>)> {
        self.reset.as_deref().map(|r| r.end)
    }

    pub(super) fn reset_mark(&self) -> Option<(Option<i64>, u32)> {
        self.reset.as_deref().map(|r| r.mark)
    }
}
