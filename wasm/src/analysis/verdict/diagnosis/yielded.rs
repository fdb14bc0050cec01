//! The sentence a headline owes the largest share it displaced (DESIGN.md "Limit
//! diagnosis": the shares say where the time went, the headline what single change would
//! have saved the most; "where they differ, the headline follows the saving and the
//! sentence says both"). savings.rs `larger_than` lets a limit whose removal saves more
//! take the headline from the largest share's; where that saving is a lower bound
//! (`loss`: at least what the recovery cost), the headline's own sentence does not name
//! the share it displaced, so this one does: the share, its saving, and why the other
//! limit is named. The auditor's rule 10 accepts such a headline only with this sentence
//! ([`SAID`]).

use super::Facts;
use crate::analysis::format::{format_duration, format_percent};
use crate::analysis::verdict::savings::saving_of;

/// The words the auditor looks for (audit.rs rule 10).
pub const SAID: &str = "took the largest share of the time";

/// `text` of headline `limit`, with the displaced largest share said where the headline
/// follows a larger lower-bound saving than that share's (module doc).
pub(super) fn said(f: &Facts, (limit, text): (&'static str, String)) -> (&'static str, String) {
    let s = f.shares;
    let cands = [("receive-window", s.receive_window), ("loss", s.loss), ("application", s.application), ("stalls", s.stalled), ("path", s.other), ("turns", s.turns)];
    let (largest, share) = cands.iter().fold(cands[0], |b, &c| if c.1 > b.1 { c } else { b });
    // Only the priced limits a lower bound can displace (savings.rs `larger_than`).
    let words = match largest {
        "stalls" => "The stalls",
        "application" => "The application's pauses",
        _ => return (limit, text),
    };
    let Some(own) = f.savings.iter().find(|x| x.limit == limit && x.at_least) else { return (limit, text) };
    let theirs = saving_of(&f.savings, largest);
    if largest == limit || !(own.seconds > theirs) || text.contains(SAID) {
        return (limit, text);
    }
    let named = match limit {
        "loss" => "the loss",
        _ => return (limit, text),
    };
    let sentence = format!(
        " {words} {SAID} ({}), but removing them would have saved {} — less than the at least {} removing {named} would have, so {named} is named.",
        format_percent(share),
        format_duration(theirs),
        format_duration(own.seconds)
    );
    (limit, text + &sentence)
}
