//! A FIN from a second sender on one side (two_senders.rs) is no close by that side.

use super::{Closing, Mark};

impl Closing {
    /// Side `d`'s FIN in frame `foreign` came from a second sender, told apart by its TTL
    /// after its bytes conflicted with the side's own (two_senders.rs): the side's own
    /// first FIN (`own`: time ns since the file's first packet, frame) stands for the
    /// side's close, or none when it sent none.
    pub(crate) fn with_own_fin(&self, d: usize, foreign: u32, own: Option<(i64, u32)>) -> Closing {
        let mut c = self.clone();
        if c.fin[d].is_some_and(|m| m.frame == foreign) {
            c.fin[d] = own.map(|(t_ns, frame)| Mark { t_ns, frame });
            c.first_fin = match c.fin {
                [Some(a), Some(b)] => Some(u8::from(b.t_ns < a.t_ns)),
                [Some(_), None] => Some(0),
                [None, Some(_)] => Some(1),
                [None, None] => None,
            };
        }
        c
    }
}
