//! The one vocabulary of the boundary (issue 40, item 1): every closed set a reader
//! sees on both sides of the worker boundary, with its wire name (what the JSON, the
//! address and the CLI write) and its human label (what the page, the share view and
//! the CLI say). The page, the embed, the compare view and the CLI read these tables
//! from the generated files (`web/worker/generated/vocabulary.ts`,
//! `cli/vocabulary.generated.mjs`, written by `typescript.rs`); none keeps its own copy
//! (web/vocabulary.test.ts fails when one does).
//!
//! The values themselves are defined where they are decided (the analysis's enums and
//! lists, the view's `Series`, the decoder's warnings): this module names them once
//! for the outside, and its tests fail when a value is added there without a label
//! here. It sits at the bindings' level of the flow: it imports downward only.

pub mod ask;
pub mod charts;
pub mod columns;
pub mod flags;
pub mod words;

#[cfg(test)]
mod typescript;
#[cfg(test)]
mod format_samples;

/// One value of a closed set: its wire name and the words a person reads for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub wire: &'static str,
    pub label: &'static str,
}

/// Shorthand for the tables: `t("ack-wait", "waiting on ACKs")`.
pub(crate) const fn t(wire: &'static str, label: &'static str) -> Term {
    Term { wire, label }
}

#[cfg(test)]
/// The wire name serde writes for an enum value (a unit variant is a JSON string).
pub fn wire_of<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        other => panic!("not a unit variant: {other:?}"),
    }
}
