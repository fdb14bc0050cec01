//! An `Option<i64>` in 8 bytes instead of 16 for the retransmission-kind tracker, which
//! every side that sends data makes (issue 43: 100,000 short connections, two each).

/// `i64::MIN` stands for none. The values kept are relative sequence numbers (within
/// ±2^33 of the side's first byte) and capture times in ns since the file's first packet
/// (±2^62 covers 146 years), so none of them is `i64::MIN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OptNs(i64);

impl OptNs {
    pub(crate) const NONE: OptNs = OptNs(i64::MIN);

    pub(crate) fn get(self) -> Option<i64> {
        (self.0 != i64::MIN).then_some(self.0)
    }
}

impl Default for OptNs {
    fn default() -> Self {
        OptNs::NONE
    }
}

impl From<Option<i64>> for OptNs {
    fn from(v: Option<i64>) -> Self {
        debug_assert_ne!(v, Some(i64::MIN), "i64::MIN stands for none");
        OptNs(v.unwrap_or(i64::MIN))
    }
}

#[cfg(test)]
mod tests {
    use super::OptNs;

    #[test]
    fn holds_an_option_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<OptNs>(), 8);
        for v in [None, Some(0), Some(-1), Some(i64::MAX), Some(i64::MIN + 1)] {
            assert_eq!(OptNs::from(v).get(), v);
        }
        assert_eq!(OptNs::default().get(), None);
    }
}
