//! The connection table for captures of up to a million connections (issue 16): one
//! compact row per connection, built once from the analysis, answering paged, sorted
//! and filtered queries, so the page never receives (and the worker never builds) the
//! whole report as one JSON string and renders only the rows in view.
//!
//! A row is ~48 bytes plus its endpoint text; every value in it is a report field
//! defined in docs/ANALYSIS.md ("The connection table"), copied, never recomputed:
//! `bytes` = the data direction's `payloadBytes`, `duration` = `end − start`,
//! `retransmissions` and `stalls` = the data direction's `retransmissions` and
//! `stalls.length`, `limit` = `diagnosis.limit`, `ended` = `ending.words`.
//!
//! An MPTCP connection (`connection.mptcp`) is one row of its own while the table is not
//! searched or filtered: the MPTCP connection's numbers (`mptcp[]`, analysis/track/mptcp.rs:
//! the data-level bytes and mean rate, its span, the subflows' retransmissions and stalls
//! summed), with its id the first subflow's; expanded, every subflow follows with its own.
//!
//! Sorting keeps the last order (key, direction, grouped or flat) and re-sorts only when
//! it changes; ties are broken by connection id, so a page is the same whatever came before.

use crate::analysis::ending::ENDING_WORDS;
use crate::analysis::mptcp::MptcpConnection;
use crate::analysis::ConnectionSummary;
use serde::{Deserialize, Serialize};

/// Most rows one query returns (a screenful is a few dozen; a page holds the rest).
pub const MAX_PAGE_ROWS: usize = 1000;

/// The diagnosis limits, in the order `limit` sorts by (docs/ANALYSIS.md, "The order
/// of the limit headline"); anything else sorts after them.
const LIMITS: [&str; 12] = ["receive-window", "zero-window", "loss", "stalls", "application", "turns", "path", "too-short", "one-direction", "not-established", "capture-gaps", "clock-broken"];

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum SortKey {
    #[default]
    Id,
    Start,
    Bytes,
    Duration,
    Retransmissions,
    Stalls,
    Limit,
    /// By `ending.words`, in the order of `ENDING_WORDS`.
    Ended,
}

/// One question about the table (JSON from the worker).
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct TableQuery {
    pub sort: SortKey,
    pub descending: bool,
    /// Case-insensitive substring of "from to" (e.g. "10.0.0.1", ":443", "fd77::").
    pub text: String,
    /// Only connections whose `diagnosis.limit` is this (empty: all).
    pub limit: String,
    pub offset: usize,
    /// Rows wanted, at most MAX_PAGE_ROWS.
    pub count: usize,
    /// MPTCP connections (`connection.mptcp`) whose subflows are listed under their
    /// first; the others show that one row only.
    #[cfg_attr(test, ts(as = "Option<Vec<u32>>", optional))]
    pub expanded: Vec<u32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TableRow {
    pub id: u32,
    pub from: String,
    pub to: String,
    pub start: f64,
    pub duration: f64,
    pub bytes: u64,
    pub retransmissions: u64,
    pub stalls: u32,
    pub limit: String,
    /// How the connection ended, in the table's words (`ending.words`, ending.rs).
    pub ended: String,
    /// `connection.mptcp`: the MPTCP connection this is a subflow of.
    #[cfg_attr(test, ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mptcp: Option<u32>,
    /// On the row that stands for an MPTCP connection: how many subflows it has; 0 on
    /// every other row (a subflow's own row included). That row's `id` is its first
    /// subflow's, its `start`, `duration`, `bytes`, `retransmissions` and `stalls` the
    /// MPTCP connection's (module comment), its `limit` and `ended` the first subflow's.
    pub subflows: u32,
    /// On the row that stands for an MPTCP connection: `mptcp[].directions[].dataMeanBps`
    /// of its data direction, the connection-level mean rate, bit/s; absent elsewhere.
    #[cfg_attr(test, ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_mean_bps: Option<f64>,
}

/// One page of the table.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TablePage {
    /// Connections in the capture.
    pub total: usize,
    /// Connections that pass the filters.
    pub matched: usize,
    pub offset: usize,
    pub rows: Vec<TableRow>,
}

#[derive(Clone, Debug)]
struct Row {
    id: u32,
    start: f64,
    duration: f64,
    bytes: u64,
    retransmissions: u64,
    stalls: u32,
    /// Index into LIMITS, or LIMITS.len() for another value (kept in `other_limits`).
    limit: u8,
    /// Index into ENDING_WORDS (ENDING_WORDS.len(): none).
    ended: u8,
    /// "from to" (lowercase) in `ConnectionTable::text`: [at, at + from_len + 1 + to_len).
    text_at: u32,
    from_len: u16,
    to_len: u16,
    /// `connection.mptcp`, or NO_MPTCP.
    mptcp: u32,
}

const NO_MPTCP: u32 = u32::MAX;

/// An MPTCP connection's row: its subflows and its own numbers.
#[derive(Clone, Debug, Default)]
struct Group {
    /// Row positions of its subflows, by ascending id.
    members: Vec<u32>,
    /// `mptcp[].start`, `end − start`, the data direction's `dataBytes` and `dataMeanBps`
    /// (None: the report's `mptcp` list was not given; the first subflow's numbers stand).
    level: Option<(f64, f64, u64, f64)>,
    /// Σ over the subflows of their data direction's `retransmissions` and stalls.
    retransmissions: u64,
    stalls: u32,
}

/// The numbers a row sorts and shows by.
#[derive(Clone, Copy)]
struct Numbers {
    start: f64,
    duration: f64,
    bytes: u64,
    retransmissions: u64,
    stalls: u32,
}

pub struct ConnectionTable {
    rows: Vec<Row>,
    text: String,
    other_limits: Vec<(u32, String)>,
    /// Row positions in the last sort order, and that order (key, descending, grouped).
    order: Vec<u32>,
    sorted_by: Option<(SortKey, bool, bool)>,
    /// Each MPTCP connection (`connection.mptcp`): its subflows and numbers.
    mptcp: std::collections::BTreeMap<u32, Group>,
}

impl ConnectionTable {
    /// The table without MPTCP connection-level numbers (an MPTCP row shows its first
    /// subflow's); `with_mptcp` is the page's.
    pub fn new(connections: &[ConnectionSummary]) -> Self {
        Self::with_mptcp(connections, &[])
    }

    /// The table of a report: its connections and its `mptcp` list.
    pub fn with_mptcp(connections: &[ConnectionSummary], mptcp: &[MptcpConnection]) -> Self {
        let mut table = ConnectionTable { rows: Vec::with_capacity(connections.len()), text: String::new(), other_limits: Vec::new(), order: Vec::new(), sorted_by: None, mptcp: Default::default() };
        for c in connections {
            let d = &c.directions[c.data_direction as usize & 1];
            let limit = LIMITS.iter().position(|&l| l == c.diagnosis.limit).unwrap_or(LIMITS.len());
            if limit == LIMITS.len() {
                table.other_limits.push((c.id, c.diagnosis.limit.clone()));
            }
            let text_at = table.text.len() as u32;
            table.text.push_str(&d.from.to_ascii_lowercase());
            table.text.push(' ');
            table.text.push_str(&d.to.to_ascii_lowercase());
            table.rows.push(Row {
                id: c.id,
                start: c.start,
                duration: c.end - c.start,
                bytes: d.payload_bytes,
                retransmissions: d.retransmissions,
                stalls: d.stalls.len() as u32,
                limit: limit as u8,
                ended: ENDING_WORDS.iter().position(|&w| w == c.ending.words).unwrap_or(ENDING_WORDS.len()) as u8,
                text_at,
                from_len: d.from.len() as u16,
                to_len: d.to.len() as u16,
                mptcp: c.mptcp.unwrap_or(NO_MPTCP),
            });
            if let Some(g) = c.mptcp {
                let group = table.mptcp.entry(g).or_default();
                group.members.push(table.rows.len() as u32 - 1);
                group.retransmissions += d.retransmissions;
                group.stalls += d.stalls.len() as u32;
            }
        }
        for (id, group) in table.mptcp.iter_mut() {
            let rows = &table.rows;
            group.members.sort_by_key(|&p| rows[p as usize].id);
            group.level = mptcp.iter().find(|m| m.id == *id).map(|m| {
                let d = &m.directions[m.data_direction as usize & 1];
                (m.start, m.end - m.start, d.data_bytes, d.data_mean_bps)
            });
        }
        table
    }

    /// The row's numbers; an MPTCP connection's own where the row stands for it.
    fn numbers(&self, r: &Row, stands_for_group: bool) -> Numbers {
        let own = Numbers { start: r.start, duration: r.duration, bytes: r.bytes, retransmissions: r.retransmissions, stalls: r.stalls };
        let Some(group) = self.mptcp.get(&r.mptcp).filter(|_| stands_for_group) else { return own };
        let (start, duration, bytes) = group.level.map(|(s, d, b, _)| (s, d, b)).unwrap_or((own.start, own.duration, own.bytes));
        Numbers { start, duration, bytes, retransmissions: group.retransmissions, stalls: group.stalls }
    }

    /// Row position `i` stands for its MPTCP connection (the table grouped, `i` its first subflow).
    fn stands_for_group(&self, i: u32, grouped: bool) -> bool {
        grouped && self.mptcp.get(&self.rows[i as usize].mptcp).is_some_and(|g| g.members[0] == i)
    }

    /// "from to", lowercase (IPv6 is written lowercase anyway, RFC 5952 §4.3).
    fn endpoint_text(&self, r: &Row) -> &str {
        let at = r.text_at as usize;
        &self.text[at..at + r.from_len as usize + 1 + r.to_len as usize]
    }

    fn endpoints(&self, r: &Row) -> (&str, &str) {
        let at = r.text_at as usize;
        let from = &self.text[at..at + r.from_len as usize];
        let to_at = at + r.from_len as usize + 1;
        (from, &self.text[to_at..to_at + r.to_len as usize])
    }

    fn limit_name(&self, r: &Row) -> String {
        match LIMITS.get(r.limit as usize) {
            Some(l) => l.to_string(),
            None => self.other_limits.iter().find(|(id, _)| *id == r.id).map(|(_, l)| l.clone()).unwrap_or_default(),
        }
    }

    fn sort(&mut self, key: SortKey, descending: bool, grouped: bool) {
        if self.sorted_by == Some((key, descending, grouped)) {
            return;
        }
        let mut order: Vec<u32> = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..self.rows.len() as u32);
        // Grouped, an MPTCP connection's row sorts by its own numbers (its other subflows
        // follow it wherever it lands, `query`). Looked up per comparison, not stored: no
        // transient of a million rows.
        let this = &*self;
        let rows = &this.rows;
        let numbers = |i: usize| this.numbers(&rows[i], rows[i].mptcp != NO_MPTCP && this.stands_for_group(i as u32, grouped));
        let cmp_key = |i: usize, j: usize| {
            let (a, b, x, y) = (&rows[i], &rows[j], numbers(i), numbers(j));
            match key {
                SortKey::Id => a.id.cmp(&b.id),
                SortKey::Start => x.start.total_cmp(&y.start),
                SortKey::Bytes => x.bytes.cmp(&y.bytes),
                SortKey::Duration => x.duration.total_cmp(&y.duration),
                SortKey::Retransmissions => x.retransmissions.cmp(&y.retransmissions),
                SortKey::Stalls => x.stalls.cmp(&y.stalls),
                SortKey::Limit => a.limit.cmp(&b.limit),
                SortKey::Ended => a.ended.cmp(&b.ended),
            }
        };
        order.sort_unstable_by(|&i, &j| {
            let (i, j) = (i as usize, j as usize);
            let by_key = if descending { cmp_key(j, i) } else { cmp_key(i, j) };
            by_key.then(rows[i].id.cmp(&rows[j].id))
        });
        self.order = order;
        self.sorted_by = Some((key, descending, grouped));
    }

    /// One page: the filtered rows in the asked order, `offset..offset + count`.
    pub fn query(&mut self, q: &TableQuery) -> TablePage {
        let needle = q.text.trim().to_ascii_lowercase();
        let limit = q.limit.trim();
        // An MPTCP connection is one row of its own with its subflows under it when
        // expanded; a search or a limit filter lists matching subflows flat.
        let collapse = needle.is_empty() && limit.is_empty();
        self.sort(q.sort, q.descending, collapse);
        let count = q.count.min(MAX_PAGE_ROWS);
        let mut matched = 0;
        let mut rows = Vec::with_capacity(count);
        let mut emit = |r: &Row, subflows: u32| {
            if matched >= q.offset && rows.len() < count {
                rows.push(self.row(r, subflows));
            }
            matched += 1;
        };
        for &i in &self.order {
            let r = &self.rows[i as usize];
            if collapse && r.mptcp != NO_MPTCP {
                let members = &self.mptcp[&r.mptcp].members;
                if members[0] != i {
                    continue;
                }
                emit(r, members.len() as u32);
                if q.expanded.contains(&r.mptcp) {
                    for &m in members {
                        emit(&self.rows[m as usize], 0);
                    }
                }
                continue;
            }
            let text_ok = needle.is_empty() || self.endpoint_text(r).contains(&needle);
            let limit_ok = limit.is_empty() || self.limit_name(r) == limit;
            if text_ok && limit_ok {
                emit(r, 0);
            }
        }
        TablePage { total: self.rows.len(), matched, offset: q.offset, rows }
    }

    /// The row as the page gets it; `subflows` > 0: the row standing for its MPTCP connection.
    fn row(&self, r: &Row, subflows: u32) -> TableRow {
        let (from, to) = self.endpoints(r);
        let n = self.numbers(r, subflows > 0);
        TableRow {
            id: r.id,
            from: from.to_string(),
            to: to.to_string(),
            start: n.start,
            duration: n.duration,
            bytes: n.bytes,
            retransmissions: n.retransmissions,
            stalls: n.stalls,
            limit: self.limit_name(r),
            ended: ENDING_WORDS.get(r.ended as usize).copied().unwrap_or_default().to_string(),
            mptcp: (r.mptcp != NO_MPTCP).then_some(r.mptcp),
            subflows,
            data_mean_bps: self.mptcp.get(&r.mptcp).filter(|_| subflows > 0).and_then(|g| g.level).map(|(.., bps)| bps),
        }
    }

    /// `query` with the request and answer as JSON (the worker's side of the binding);
    /// a request that does not parse gets `{"error": …}`.
    pub fn query_json(&mut self, request: &str) -> String {
        match serde_json::from_str::<TableQuery>(request) {
            Ok(q) => serde_json::to_string(&self.query(&q)).unwrap_or_else(|e| error_json(&e.to_string())),
            Err(e) => error_json(&format!("bad table query: {e}")),
        }
    }

    /// Heap bytes held (rows, endpoint text, sort order): the memory test's measure.
    pub fn allocated(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>() + self.text.capacity() + self.order.capacity() * 4
            + self.mptcp.values().map(|g| std::mem::size_of::<Group>() + g.members.capacity() * 4).sum::<usize>()
    }
}

fn error_json(message: &str) -> String {
    format!("{{\"error\":{}}}", serde_json::Value::from(message))
}
