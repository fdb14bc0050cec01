//! The one question of the boundary (wasm/src/boundary/ask.rs `parse`, issue 40): any
//! text as a question, answered over an analysed capture (wasm/src/answer.rs), as the
//! worker, the CLI and the renderer ask it. Properties: no panic; every reply is JSON;
//! text that is not a question is answered `{"refused": …}`. Seeds
//! (wasm/fuzz/seeds/ask_parse): one question of each kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::answer::{answer, Asked};
use tcpscope_core::boundary::ask;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::view::ViewEngine;

thread_local! {
    static SESSION: Session = analyze_bytes(include_bytes!("../../../public/examples/healthy.pcap"), AnalysisOptions::default(), 1 << 16);
    static VIEWS: RefCell<ViewEngine> = RefCell::new(ViewEngine::new());
}

fuzz_target!(|data: &[u8]| {
    let Ok(question) = std::str::from_utf8(data) else { return };
    let parsed = ask::parse(question);
    if let Err(refused) = &parsed {
        let v: serde_json::Value = serde_json::from_str(refused).expect("a refusal is JSON");
        assert!(v["refused"].is_string(), "{refused}");
    }
    let reply = SESSION.with(|session| VIEWS.with(|views| answer(Asked { session, table: &mut None, views: &mut views.borrow_mut() }, question)));
    serde_json::from_str::<serde_json::Value>(&reply).unwrap_or_else(|e| panic!("the reply to {question:?} is not JSON ({e}): {reply}"));
});
