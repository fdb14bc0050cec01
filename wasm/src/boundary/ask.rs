//! The one question the engine is asked across the boundary (issue 40, item 1): every
//! JSON request of the page's worker, the CLI and the renderer is an [`Ask`], sent to
//! one entry point (`WasmSession.ask`, `WasmSnapshot.ask`; answered by
//! `crate::answer`), and [`REPLIES`] says what each is answered with. Both are
//! generated into TypeScript (`Ask` in `web/worker/generated/view.ts`, `AskReply` in
//! `web/worker/generated/vocabulary.ts`), so the worker forwards a question and its
//! reply is typed by the question's name, without a cast at the caller.
//!
//! Outside this enum the boundary carries numbers, not JSON: the capture's bytes in
//! (`push`), the packed view answer and the per-packet column copies out (typed arrays,
//! transferred without parsing — view/packed.rs).

use crate::analysis::bdp::BdpQuestion;
use crate::share::ShareSpec;
use crate::table::TableQuery;
use crate::view::{AtRequest, ViewRequest};
use serde::{Deserialize, Serialize};

/// One question. `{"ask":"view","request":{…}}`; the tag is the question's name.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "ask", rename_all = "camelCase", deny_unknown_fields)]
pub enum Ask {
    /// The whole report (schema 1, as `tcpscope analyze --json` writes it).
    Report,
    /// The report without its connections, plus `connectionCount` (the first line of
    /// `--ndjson`): a capture of a million connections is never one JSON string.
    Header,
    /// The connection at position `index` of the report; null past the end.
    Connection { index: u32 },
    /// That connection as the compact fleet row (compact_row.rs, docs/FLEET.md).
    CompactRow { index: u32 },
    /// While the capture is read: the `count` largest connections so far
    /// (view/partial.rs); null once the analysis is finished.
    PartialTable { count: u32 },
    /// One page of the connection table (table.rs), after the analysis.
    Table { query: TableQuery },
    /// One pixel-sized question of a chart (view/, or view/partial.rs while reading).
    View { request: ViewRequest },
    /// The value under the pointer (view/at.rs).
    At { request: AtRequest },
    /// The bandwidth-delay calculator (analysis/rates/bdp.rs): about no capture.
    Bdp { question: BdpQuestion },
    /// A share link of a view (share/build.rs).
    Share { spec: ShareSpec },
    /// What a share link holds besides its report (a link's session only).
    Link,
}

/// What each question is answered with: its name (the tag) → the TypeScript type of
/// the reply. Every reply may instead be [`Refused`] (a question that does not parse,
/// or one this kind of session cannot answer); `web/worker/ask.ts` throws it.
pub const REPLIES: &[(&str, &str)] = &[
    ("report", "Report"),
    ("header", "Omit<Report, 'connections'> & { connectionCount: number }"),
    ("connection", "ConnectionSummary | null"),
    ("compactRow", "Record<string, unknown> | null"),
    ("partialTable", "PartialTable | null"),
    ("table", "TablePage"),
    ("view", "ViewResponse"),
    ("at", "ViewAt"),
    ("bdp", "BdpAnswer"),
    ("share", "SharedLink"),
    ("link", "LinkInfo"),
];

/// A question not answered: why, in words for people.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Refused {
    pub refused: String,
}

impl Refused {
    pub fn json(why: &str) -> String {
        serde_json::to_string(&Refused { refused: why.to_string() }).unwrap_or_else(|_| r#"{"refused":"?"}"#.into())
    }
}

/// The reply to `share`: the link's snapshot (base64url), its pixel columns and size,
/// or why no link could be made.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum SharedLink {
    Made { snapshot: String, columns: u32, bytes: usize },
    Failed { error: String },
}

/// The reply to `link`: the capture's name, the sender's view (a URL fragment) and the
/// pixel columns the link holds (0 for a per-packet, first-round link).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LinkInfo {
    pub name: String,
    pub view: String,
    pub columns: u32,
}

/// Reads one question; a question that does not parse is answered by the reason.
pub fn parse(json: &str) -> Result<Ask, String> {
    serde_json::from_str::<Ask>(json).map_err(|e| Refused::json(&format!("not a question the engine knows: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ts_rs::TS;

    /// Every variant of `Ask` has its reply in `REPLIES`, and nothing else does: the
    /// names are read from the generated declaration (`"ask": "…"`), so a new variant
    /// without a reply fails here.
    #[test]
    fn every_question_has_one_reply_type() {
        let decl = Ask::decl(&ts_rs::Config::default());
        let mut asked: Vec<&str> = decl.split("\"ask\": \"").skip(1).filter_map(|s| s.split('"').next()).collect();
        let mut replied: Vec<&str> = REPLIES.iter().map(|r| r.0).collect();
        asked.sort_unstable();
        replied.sort_unstable();
        assert_eq!(asked, replied, "Ask's variants and REPLIES differ: {decl}");
    }

    #[test]
    fn questions_parse_and_others_are_refused() {
        assert!(matches!(parse(r#"{"ask":"connection","index":3}"#), Ok(Ask::Connection { index: 3 })));
        assert!(matches!(parse(r#"{"ask":"report"}"#), Ok(Ask::Report)));
        let refused = parse(r#"{"ask":"drop tables"}"#).unwrap_err();
        assert!(refused.starts_with(r#"{"refused":"not a question the engine knows: unknown variant"#), "{refused}");
        assert!(parse("not json").is_err());
        // A field the question does not have is refused, not ignored (a typo'd
        // `indx` would otherwise ask about connection 0).
        assert!(parse(r#"{"ask":"connection","indx":3}"#).is_err());
    }
}
