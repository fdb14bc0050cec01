//! The answering end's waits said again where its answers were relayed: through an
//! explicit proxy's tunnel (app_facts/proxy.rs) or a proxy that accepted the connection
//! itself (terminating_proxy.rs). One rewrite of the typed facts the diagnosis left
//! (report.rs `Said`): the answer-waits sentence (answer_waits.rs) and the application
//! saving's lead (wait_words.rs `own_waits_lead`); their numbers stay as they were.

use crate::analysis::format::format_duration;
use crate::analysis::report::ConnectionSummary;

/// How the relayed waits are said.
pub struct Relayed<'a> {
    /// The end whose answers were relayed, as the connection names it.
    pub answerer: &'a str,
    /// After "{answerer} took {words}): ", the sentence's new close.
    pub answer_close: &'a str,
    /// The lead's subject: "Had {who} always had data ready …".
    pub who: &'a str,
    /// How the waits for its answers went: "(the waits for its answers, {how}, …".
    pub how: &'a str,
}

/// Rewrites both where `r.answerer` sent the data; the facts are then spent.
pub fn rewrite(c: &mut ConnectionSummary, r: &Relayed) {
    let d = c.data_direction.min(1) as usize;
    if c.directions.get(d).is_none_or(|s| s.from != r.answerer) {
        return;
    }
    let (said, text) = (c.diagnosis.said.clone(), &mut c.diagnosis.text);
    let mut replace = |old: &str, new: String| {
        if let Some(at) = text.find(old) {
            text.replace_range(at..at + old.len(), &new);
        }
    };
    if let Some((sentence, _, _, words)) = &said.answer_waits {
        replace(sentence, format!("{} took {words}): {}", r.answerer, r.answer_close));
    }
    if let Some((lead, own, theirs, turns)) = &said.own_waits {
        let peer = &c.directions[1 - d].from;
        let (ready, other) = if *turns { ("had every answer ready at once", "") } else { ("always had data ready", " of the pauses") };
        replace(lead, format!(
            "Had {} {ready} (the waits for its answers, {}, {}; the other {}{other} was the wait for {peer}'s next message)",
            r.who,
            r.how,
            format_duration(*own),
            format_duration(*theirs)
        ));
    }
    c.diagnosis.said = Default::default(); // said otherwise now
}
