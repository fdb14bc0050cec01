//! The shards of one capture (shard.rs) for JavaScript: `WasmSession.shard` before the
//! first push, `shardFacts` after finish, `shardPlan` in the thread that merges, then
//! `shardRenumber` in each shard and `shardHeader` for the merged header line. The CLI
//! drives them (cli/shards.mjs); bindings.rs is at the size limit, so they live here.

use crate::bindings::WasmSession;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl WasmSession {
    /// Analyse only the connections of shard `index` of `count`; before the first push.
    pub fn shard(&mut self, index: u32, count: u32) {
        self.inner.shard(index, count);
    }

    /// This shard's account for `shardPlan`, as JSON (after finish; "null" when not a shard).
    #[wasm_bindgen(js_name = shardFacts)]
    pub fn shard_facts(&self) -> String {
        serde_json::to_string(&self.inner.shard_facts()).unwrap_or_else(|_| "null".into())
    }

    /// Gives this shard's connection `i` the id `ids[i]` of the merged report.
    #[wasm_bindgen(js_name = shardRenumber)]
    pub fn shard_renumber(&mut self, ids: &[u32]) {
        self.inner.renumber(ids);
    }
}

/// `facts`: a JSON array of each shard's `shardFacts`, in shard order. Replies
/// `{"plan":{"order":[[shard,index]…],"header":shard}}` or `{"refused":"why"}`.
#[wasm_bindgen(js_name = shardPlan)]
pub fn shard_plan(facts: &str) -> String {
    let reply = match serde_json::from_str::<Vec<crate::shard::Facts>>(facts) {
        Err(e) => serde_json::json!({ "refused": format!("the shards' facts: {e}") }),
        Ok(f) => match crate::shard::plan(&f, &crate::analysis::AnalysisOptions::default()) {
            Ok(plan) => serde_json::json!({ "plan": plan }),
            Err(why) => serde_json::json!({ "refused": why }),
        },
    };
    reply.to_string()
}

/// The merged report's header line: the plan's header shard's, counting `connections`.
#[wasm_bindgen(js_name = shardHeader)]
pub fn shard_header(header: &str, connections: u32) -> String {
    crate::shard::merged_header(header, connections as usize)
}
