//! Answers the one question of the boundary ([`Ask`], boundary/ask.rs) over a capture's
//! session or a share link's. Pure: JSON in, JSON out, so the CLI, the worker and the
//! native tests reach the engine the same way; `bindings.rs` only hands its session,
//! table and view cache in. Every reply is the type `boundary::ask::REPLIES` names for
//! the question, or `{"refused": why}`.

use crate::boundary::ask::{self, Ask, LinkInfo, Refused, SharedLink};
use crate::session::Session;
use crate::share::SnapshotSession;
use crate::table::ConnectionTable;
use crate::view::ViewEngine;

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| Refused::json(&e.to_string()))
}

/// What a capture's session holds besides the session itself: the connection table
/// (built at its first question) and the view engine whose cache answers the charts.
pub struct Asked<'a> {
    pub session: &'a Session,
    pub table: &'a mut Option<ConnectionTable>,
    pub views: &'a mut ViewEngine,
}

/// One question about a capture (read or being read).
pub fn answer(asked: Asked<'_>, question: &str) -> String {
    let Asked { session, table, views } = asked;
    let ask = match ask::parse(question) {
        Ok(a) => a,
        Err(refused) => return refused,
    };
    let connections = session.analysis().map(|a| a.connections.as_slice()).unwrap_or(&[]);
    let not_yet = || Refused::json("the capture is not analysed yet");
    match ask {
        Ask::Report => session.report().to_json(),
        Ask::Header => session.report().header_json(),
        Ask::Connection { index } => crate::report::Report::connection_json(connections, index as usize).unwrap_or_else(|| "null".into()),
        Ask::CompactRow { index } => connections.get(index as usize).map_or_else(|| "null".into(), |c| crate::compact_row::CompactRow::of(c).to_json()),
        Ask::PartialTable { count } => session.running().map_or_else(|| "null".into(), |r| json(&crate::view::partial::table(r, count as usize))),
        Ask::Table { query } => match session.analysis() {
            Some(a) => json(&table.get_or_insert_with(|| ConnectionTable::with_mptcp(&a.connections, &a.mptcp)).query(&query)),
            None => not_yet(),
        },
        Ask::View { request } => match (session.analysis(), session.running()) {
            (Some(a), _) => json(&views.query(a, &request)),
            // Still reading: the partial answer (view/partial.rs).
            (None, Some(r)) => json(&crate::view::partial::query(r, &request)),
            (None, None) => json(&crate::view::failed(&request, "the capture is not being read".into())),
        },
        Ask::At { request } => match session.analysis() {
            Some(a) => json(&views.at(a, &request)),
            None => json(&crate::view::ViewAt { generation: request.generation, error: Some("the capture is not analysed yet".into()), ..Default::default() }),
        },
        Ask::Bdp { question } => json(&crate::analysis::bdp::calculate(&question)),
        Ask::Share { spec } => json(&match session.analysis() {
            None => SharedLink::Failed { error: "the capture is not analysed yet".into() },
            Some(a) => match crate::share::build(a, &session.report().to_json(), views, &spec) {
                Ok(b) => SharedLink::Made { snapshot: crate::share::bytes::to_base64url(&b.bytes), columns: b.columns, bytes: b.bytes.len() },
                Err(error) => SharedLink::Failed { error },
            },
        }),
        Ask::Link => Refused::json("a capture is not a share link"),
    }
}

/// One question about a share link: it holds a report of one connection and the
/// answers of its charts, nothing to tabulate, point at or share again.
pub fn answer_link(link: &mut SnapshotSession, question: &str) -> String {
    match ask::parse(question) {
        Err(refused) => refused,
        Ok(Ask::Report) => link.report_json(),
        Ok(Ask::View { request }) => json(&link.query(&request)),
        Ok(Ask::Link) => json(&LinkInfo { name: link.name().to_string(), view: link.view().to_string(), columns: link.grid().map_or(0, |g| g.columns) }),
        Ok(Ask::Bdp { question }) => json(&crate::analysis::bdp::calculate(&question)),
        Ok(_) => Refused::json("a share link holds one connection's report and its charts' answers only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalysisOptions;

    fn session() -> Session {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../public/examples/healthy.pcap")).expect("healthy.pcap");
        crate::session::analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16)
    }

    fn ask(s: &Session, q: &str) -> String {
        let (mut table, mut views) = (None, ViewEngine::new());
        answer(Asked { session: s, table: &mut table, views: &mut views }, q)
    }

    /// The entry point answers as the functions it forwards to do: the report is
    /// byte for byte `Report::to_json`, a connection past the end is null.
    #[test]
    fn answers_are_the_engines_own() {
        let s = session();
        assert_eq!(ask(&s, r#"{"ask":"report"}"#), s.report().to_json());
        assert_eq!(ask(&s, r#"{"ask":"header"}"#), s.report().header_json());
        assert_eq!(ask(&s, r#"{"ask":"connection","index":0}"#), crate::report::Report::connection_json(&s.analysis().unwrap().connections, 0).unwrap());
        assert_eq!(ask(&s, r#"{"ask":"connection","index":99}"#), "null");
        // healthy.pcap is finished: no partial table.
        assert_eq!(ask(&s, r#"{"ask":"partialTable","count":5}"#), "null");
        assert!(ask(&s, r#"{"ask":"table","query":{"count":1}}"#).contains("\"rows\""));
        assert!(ask(&s, r#"{"ask":"link"}"#).starts_with(r#"{"refused":"#));
        let view = ask(&s, r#"{"ask":"view","request":{"generation":1,"connection":0,"series":"throughput","t0":0,"t1":1,"columns":10}}"#);
        assert!(view.contains(r#""kind":"bins""#), "{view}");
        let shared = ask(&s, r#"{"ask":"share","spec":{"connection":0,"name":"healthy.pcap"}}"#);
        assert!(shared.starts_with(r#"{"snapshot":""#), "{shared}");
    }

    /// A link answers its report, its charts and what it holds; it has no table.
    #[test]
    fn a_link_answers_what_it_holds() {
        let s = session();
        let shared: serde_json::Value = serde_json::from_str(&ask(&s, r#"{"ask":"share","spec":{"connection":0,"name":"healthy.pcap","view":"c=0"}}"#)).unwrap();
        let bytes = crate::share::bytes::from_base64url(shared["snapshot"].as_str().unwrap()).unwrap();
        let mut link = SnapshotSession::open(&bytes).unwrap();
        assert_eq!(answer_link(&mut link, r#"{"ask":"link"}"#), format!(r#"{{"name":"healthy.pcap","view":"c=0","columns":{}}}"#, shared["columns"]));
        assert!(answer_link(&mut link, r#"{"ask":"table","query":{}}"#).starts_with(r#"{"refused":"#));
        assert_eq!(answer_link(&mut link, r#"{"ask":"report"}"#), link.report_json());
    }
}
