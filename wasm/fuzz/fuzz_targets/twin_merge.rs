//! Two vantage points merged (wasm/src/twin, issue 44): two captures cut from one input
//! — the same file twice, one side cut short in the middle of a record, the two given
//! either way round, a lower stall threshold — through `merge_captures`. Properties: no
//! panic; the report serialises; the same bytes twice are refused as one vantage point;
//! a merged pair has a finite clock, and every placed stall's parts fit in its own gap
//! (docs/ANALYSIS.md `twin.stalls[].place`). Seeds (wasm/fuzz/seeds/twin_merge): the
//! first packets of the twin recordings' two captures, laid out as below.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::twin::merge_captures;

fuzz_target!(|data: &[u8]| {
    // [mode][split, u32 LE][first capture | second capture]
    if data.len() < 5 {
        return;
    }
    let mode = data[0];
    let rest = &data[5..];
    let split = u32::from_le_bytes(data[1..5].try_into().unwrap()) as usize % (rest.len() + 1);
    let (mut a, mut b) = rest.split_at(split);
    if mode & 1 != 0 {
        b = a; // the same file twice
    } else if mode & 2 != 0 {
        b = &b[..b.len() / 2]; // the other end's capture cut short
    }
    if mode & 4 != 0 {
        std::mem::swap(&mut a, &mut b);
    }
    let options = AnalysisOptions { stall_threshold_ms: (mode & 8 != 0).then_some(20.0), ..AnalysisOptions::default() };
    let r = merge_captures(a, b, options);
    serde_json::to_string(&r).expect("the report serialises");
    if a == b {
        assert_eq!(r.refusal.as_ref().map(|x| x.kind), Some("same-capture"), "{:?}", r.refusal);
    }
    for p in r.pairs.iter().filter(|p| p.refused.is_none()) {
        let c = p.clock.as_ref().expect("a merged pair has a clock");
        assert!(c.offset_ms.is_finite() && c.uncertainty_ms.is_finite(), "{c:?}");
        for s in &p.stalls {
            // The parts are read on the merged axis in ns, the gap in the capture's own
            // seconds: equal to f64 rounding (a 79-year gap between two records is 2.5e18
            // ns, whose spacing is 512 ns).
            let gap = s.duration * 1e3 * (1.0 + 1e-12) + 1e-6;
            for part in [s.sender_host_ms, s.network_ms, s.receiver_host_ms].into_iter().flatten() {
                assert!(part <= gap, "{s:?}");
            }
        }
    }
});
