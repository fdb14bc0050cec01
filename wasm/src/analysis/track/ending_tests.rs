//! Tests of ending.rs (moved out of it to keep the production file short).

/// The same text as `format_timestamp` ("{:.3} s"), on either path.
#[test]
fn timestamps_as_the_diagnosis_writes_them() {
    use crate::analysis::format::format_timestamp;
    for t in [0.0, -0.0, -0.0004, 0.0004, 0.0005, 0.0015, 2.086016, 2.0865, 2.1125, -0.2, -1.0005, 3.2104999, 999_999.9996, 120_817_629.660696, 1e300, f64::NAN] {
        let mut s = String::new();
        super::in_words::push_timestamp(&mut s, t);
        assert_eq!(s, format_timestamp(t), "{t}");
    }
    for k in 0..200_000u64 {
        let t = k as f64 * 0.000_123_7;
        let mut s = String::new();
        super::in_words::push_timestamp(&mut s, t);
        assert_eq!(s, format_timestamp(t), "{t}");
    }
}

#[test]
fn byte_counts_in_the_diagnosis_unit_and_exactly() {
    assert_eq!(super::in_words::bytes(900), "900 bytes");
    assert_eq!(super::in_words::bytes(24_647), "24 KiB (24,647 bytes)");
    assert_eq!(super::in_words::bytes(3_000_000), "2.9 MiB (3,000,000 bytes)");
}
