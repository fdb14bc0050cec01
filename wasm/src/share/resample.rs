//! A JSON value's lists cut to a link's size, without knowing its fields (share/twin.rs
//! uses it on a merged pair, whatever series the pair holds).
//!
//! Three kinds of list are told apart by their rows alone:
//! - a **binned series**: objects with a numeric `t` (seconds) that sum up the samples of
//!   a time span: they have a `width` (the span [t, t + width)), or a least and a
//!   greatest field (named `min…`/`…Min` and `max…`/`…Max`). Rows are merged into the
//!   link's columns, as the engine would have binned them at the columns' width: `t` and
//!   `width` the column's (without a `width`, `t` the first row's), `min` fields the
//!   least, `max` fields the greatest, other integer fields (what the rows count)
//!   summed, any other field the first row's. A series with no more rows than columns
//!   keeps its rows.
//! - a **point series**: objects with a numeric `t` and no `width`. With more rows than
//!   columns, per column the rows that draw it are kept (M4: Jugel et al., VLDB 2014):
//!   the first and last in time and, for each other numeric field, the rows holding its
//!   least and greatest value, so a line through the kept rows has the same pixels as
//!   one through all of them: so for rows of numbers only (a curve). Rows with words
//!   record events (a datagram lost between), each a mark: only the cap cuts them.
//! - any other list, and a series of events: at most `cap` rows kept, evenly spread over
//!   it, the first and the last among them (parallel lists of one length keep the same
//!   rows); a list of [`SMALL`] rows or fewer is never cut. Only these cuts are noted
//!   (`Cut`): a series drawn at the link's columns misses no pixel.
//!
//! The floats of both series are then kept to steps of 1/16 384 of their field's largest
//! magnitude or finer (1, 2 or 5 × a power of ten, so packed.rs writes them as small
//! integers): a quarter of a pixel of a 4096 px chart; `min` fields rounded down and
//! `max` fields up. Other values are untouched: a panel's numbers stay exact.

use serde_json::{Map, Number, Value};

/// The link's columns over one time axis shared by every series of the value.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub t0: f64,
    pub t1: f64,
    pub columns: usize,
}

impl Grid {
    fn width(&self) -> f64 {
        (self.t1 - self.t0).max(f64::MIN_POSITIVE) / self.columns as f64
    }

    /// The column holding `t`; a time on a column's edge (to a part in 10^9: 3 × 0.1 s is
    /// 0.30000000000000004) in the column it starts.
    fn column(&self, t: f64) -> usize {
        (((t - self.t0) / self.width() + 1e-9).max(0.0) as usize).min(self.columns - 1)
    }
}

/// A list that lost rows: where, how many it kept of how many.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// The list's key (the last one on the way to it: `events`, `stalls`).
    pub key: String,
    pub kept: usize,
    pub of: usize,
}

/// Lists this short are never cut: a pair's fixed pairs (its two directions, endpoints,
/// thresholds) keep their length, whatever the cap.
pub const SMALL: usize = 4;

/// Relative precision kept of a series' floats (14 bits).
const PRECISION: f64 = 16_384.0;

fn number(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64().filter(|x| x.is_finite())
}

/// A row of numbers (or nulls) only: a sample of a curve; a row with words (a kind, a
/// sentence) records an event.
fn numbers_only(row: &Value) -> bool {
    row.as_object().is_some_and(|m| m.values().all(|v| v.is_number() || v.is_null()))
}

fn is_series(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(|v| v.is_object() && number(v, "t").is_some())
}

fn is_least(key: &str) -> bool {
    key.starts_with("min") || key.ends_with("Min")
}

fn is_greatest(key: &str) -> bool {
    key.starts_with("max") || key.ends_with("Max")
}

/// Rows that sum up a span each (module doc).
fn is_binned(items: &[Value]) -> bool {
    let spans = |v: &Value| {
        let keys = || v.as_object().into_iter().flat_map(|m| m.keys());
        number(v, "width").is_some() || (keys().any(|k| is_least(k)) && keys().any(|k| is_greatest(k)))
    };
    is_series(items) && items.iter().all(spans)
}

/// The time span of every series in `v` ([first t, last end]), if it holds any.
pub fn span(v: &Value) -> Option<(f64, f64)> {
    let mut out: Option<(f64, f64)> = None;
    let mut widen = |a: f64, b: f64| out = Some(out.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
    fn walk(v: &Value, widen: &mut dyn FnMut(f64, f64)) {
        match v {
            Value::Array(items) if is_series(items) => {
                for row in items {
                    let t = number(row, "t").unwrap_or(0.0);
                    widen(t, t + number(row, "width").unwrap_or(0.0).max(0.0));
                }
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, widen)),
            Value::Object(map) => map.values().for_each(|x| walk(x, widen)),
            _ => {}
        }
    }
    walk(v, &mut widen);
    out
}

/// Cuts `v`'s lists in place (module doc): series to `grid`, other lists to `cap` rows.
pub fn resample(v: &mut Value, grid: &Grid, cap: Option<usize>, cuts: &mut Vec<Cut>) {
    walk(v, "", grid, cap, cuts);
}

fn walk(v: &mut Value, key: &str, grid: &Grid, cap: Option<usize>, cuts: &mut Vec<Cut>) {
    match v {
        Value::Array(items) => {
            let of = items.len();
            if is_binned(items) {
                if of > grid.columns {
                    *items = merge_bins(items, grid);
                }
                quantize(items);
                return;
            }
            if is_series(items) {
                // A curve (rows of numbers only) is drawn at the link's columns: no row
                // that changes a pixel is missing, and no cap applies. Events (rows with
                // words) are each a mark: only the cap cuts them.
                let curve = items.iter().all(numbers_only);
                if curve && of > grid.columns {
                    *items = m4(items, grid);
                }
                quantize(items);
                if curve {
                    return;
                }
            } else {
                items.iter_mut().for_each(|x| walk(x, key, grid, cap, cuts));
            }
            if let Some(cap) = cap.filter(|&c| items.len() > c.max(SMALL)) {
                *items = spread(items, cap);
            }
            if items.len() < of {
                cuts.push(Cut { key: key.to_string(), kept: items.len(), of });
            }
        }
        Value::Object(map) => map.iter_mut().for_each(|(k, x)| walk(x, k, grid, cap, cuts)),
        _ => {}
    }
}

/// Rows merged per column (module doc: binned series).
fn merge_bins(rows: &[Value], grid: &Grid) -> Vec<Value> {
    let mut out: Vec<(usize, Map<String, Value>)> = Vec::new();
    for row in rows {
        let Some(map) = row.as_object() else { continue };
        let column = grid.column(number(row, "t").unwrap_or(grid.t0));
        match out.last_mut() {
            Some((c, merged)) if *c == column => absorb(merged, map),
            _ => out.push((column, map.clone())),
        }
    }
    let width = grid.width();
    out.into_iter()
        .map(|(c, mut m)| {
            if m.contains_key("width") {
                m.insert("t".into(), float(grid.t0 + c as f64 * width, &Value::Null));
                m.insert("width".into(), float(width, &Value::Null));
            }
            Value::Object(m)
        })
        .collect()
}

/// `row` merged into `into` (the earlier rows of its column; `t` and `width` are the
/// column's, set after).
fn absorb(into: &mut Map<String, Value>, row: &Map<String, Value>) {
    for (k, x) in row {
        let Some(old) = into.get_mut(k) else { continue };
        let pick = |keep_new: bool, old: &mut Value| if keep_new { *old = x.clone() };
        match (k.as_str(), old.as_f64(), x.as_f64()) {
            ("t" | "width", ..) => {}
            (k, Some(a), Some(b)) if is_least(k) => pick(b < a, old),
            (k, Some(a), Some(b)) if is_greatest(k) => pick(b > a, old),
            (k, None, Some(_)) if is_least(k) || is_greatest(k) => pick(true, old),
            _ => {
                if let (Some(a), Some(b)) = (old.as_u64(), x.as_u64()) {
                    *old = Value::from(a.saturating_add(b));
                } else if let (Some(a), Some(b)) = (old.as_i64(), x.as_i64()) {
                    *old = Value::from(a.saturating_add(b));
                }
            }
        }
    }
}

fn float(f: f64, was: &Value) -> Value {
    Number::from_f64(f).map_or_else(|| was.clone(), Value::Number)
}

/// Per column, the first and last rows and those holding each numeric field's extremes
/// (module doc: point series), in their order.
fn m4(rows: &[Value], grid: &Grid) -> Vec<Value> {
    let fields: Vec<&String> = rows[0].as_object().map(|m| m.keys().filter(|k| *k != "t").collect()).unwrap_or_default();
    let mut keep = vec![false; rows.len()];
    let mut start = 0;
    while start < rows.len() {
        let column = grid.column(number(&rows[start], "t").unwrap_or(grid.t0));
        let mut end = start + 1;
        while end < rows.len() && grid.column(number(&rows[end], "t").unwrap_or(grid.t0)) == column {
            end += 1;
        }
        keep[start] = true;
        keep[end - 1] = true;
        for f in &fields {
            let values = (start..end).filter_map(|i| number(&rows[i], f).map(|x| (i, x)));
            if let Some((i, _)) = values.clone().min_by(|a, b| a.1.total_cmp(&b.1)) {
                keep[i] = true;
            }
            if let Some((i, _)) = values.max_by(|a, b| a.1.total_cmp(&b.1)) {
                keep[i] = true;
            }
        }
        start = end;
    }
    rows.iter().zip(keep).filter(|(_, k)| *k).map(|(r, _)| r.clone()).collect()
}

/// `cap` rows evenly spread over `rows`, the first and the last among them.
fn spread(rows: &[Value], cap: usize) -> Vec<Value> {
    match cap {
        0 => Vec::new(),
        1 => rows[..1].to_vec(),
        _ => (0..cap).map(|j| rows[j * (rows.len() - 1) / (cap - 1)].clone()).collect(),
    }
}

/// Each float field of the rows kept to steps of 1, 2 or 5 × 10^−k, the coarsest at or
/// below 1/16 384 of its largest magnitude (module doc).
fn quantize(rows: &mut [Value]) {
    let Some(fields) = rows.first().and_then(Value::as_object).map(|m| m.keys().cloned().collect::<Vec<_>>()) else { return };
    for f in fields {
        let floats = || rows.iter().filter_map(|r| r.get(&f).filter(|x| x.is_f64()).and_then(Value::as_f64));
        let largest = floats().fold(0.0f64, |m, x| m.max(x.abs()));
        if largest == 0.0 || !largest.is_finite() {
            continue;
        }
        let step = largest / PRECISION;
        let k = -step.log10().floor();
        if !(0.0..=12.0).contains(&k) {
            continue;
        }
        // step = m × 10^−k with m in [1, 10): the step taken is 1, 2 or 5 × 10^−k.
        let scale = 10f64.powi(k as i32);
        let m = [5.0, 2.0, 1.0].into_iter().find(|&m| m <= step * scale).unwrap_or(1.0);
        // A least rounds down and a greatest up, so a bin still holds what it held.
        // (To a part in 10^9: 10.074 ms is 10 073.999999999998 µs.)
        let round = |v: f64| if is_least(&f) { (v + 1e-9).floor() } else if is_greatest(&f) { (v - 1e-9).ceil() } else { v.round() };
        for r in rows.iter_mut() {
            if let Some(x) = r.get_mut(&f).filter(|x| x.is_f64()) {
                // In integers of 10^−k, so the result is an exact decimal at k places.
                let q = round(x.as_f64().unwrap_or(0.0) * scale / m) * m / scale;
                *x = float(q, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bins(n: usize) -> Vec<Value> {
        (0..n).map(|k| json!({"t": k as f64 * 0.01, "width": 0.01, "minMs": 5.0 + (k % 10) as f64, "maxMs": 6.0 + (k % 10) as f64, "count": 2})).collect()
    }

    /// 1000 bins of 10 ms over 10 s, on 100 columns: 100 bins of 100 ms, each holding the
    /// least and greatest delay of its ten (5 and 15 ms here) and their 20 datagrams.
    #[test]
    fn bins_merge_into_columns() {
        let mut v = json!({"series": bins(1000)});
        let grid = Grid { t0: 0.0, t1: 10.0, columns: 100 };
        let mut cuts = Vec::new();
        resample(&mut v, &grid, Some(4), &mut cuts);
        let s = v["series"].as_array().unwrap();
        assert_eq!(s.len(), 100);
        assert_eq!((s[3]["t"].as_f64(), s[3]["width"].as_f64()), (Some(0.3), Some(0.1)));
        assert_eq!((s[3]["minMs"].as_f64(), s[3]["maxMs"].as_f64(), s[3]["count"].as_u64()), (Some(5.0), Some(15.0), Some(20)));
        assert!(cuts.is_empty(), "a binned series is drawn at the link's columns: no rows are missing from the picture");
    }

    /// Rows with a least and a greatest and no width (a time-sequence bin: the lowest and
    /// highest sequence number of the datagrams in it) merge the same way, `t` the first
    /// row's, the integer counts summed.
    #[test]
    fn rows_with_a_least_and_a_greatest_merge_too() {
        let rows: Vec<Value> = (0..100).map(|k| json!({"t": k as f64 * 0.01, "seqMin": k * 1000, "seqMax": k * 1000 + 1448, "count": 1, "retransmitted": (k % 10 == 3) as u32})).collect();
        let mut v = json!({"bins": rows});
        let mut cuts = Vec::new();
        resample(&mut v, &Grid { t0: 0.0, t1: 1.0, columns: 10 }, None, &mut cuts);
        let s = v["bins"].as_array().unwrap();
        assert_eq!(s.len(), 10);
        assert_eq!(s[3], json!({"t": 0.3, "seqMin": 30_000, "seqMax": 40_448, "count": 10, "retransmitted": 1}));
        assert!(cuts.is_empty());
    }

    /// A curve keeps, per column, its first, last and extreme rows: a dip inside a column
    /// stays; a list without times is cut to the cap, evenly, with the last row.
    #[test]
    fn points_keep_what_draws_them_and_lists_are_capped() {
        let points: Vec<Value> = (0..1000).map(|k| json!({"t": k as f64 * 0.001, "seq": if k == 517 { 3 } else { k * 100 }})).collect();
        let list: Vec<Value> = (0..50).map(|k| json!({"at": k, "why": "x"})).collect();
        let mut v = json!({"points": points, "stalls": list, "pair": [1, 2]});
        let mut cuts = Vec::new();
        resample(&mut v, &Grid { t0: 0.0, t1: 1.0, columns: 10 }, Some(8), &mut cuts);
        let seqs: Vec<i64> = v["points"].as_array().unwrap().iter().map(|p| p["seq"].as_i64().unwrap()).collect();
        assert!(seqs.contains(&3), "the dip at row 517 stays");
        assert_eq!(seqs.len(), 21, "10 columns × first and last, and the dip's column its least: a curve, not capped");
        let ats: Vec<i64> = v["stalls"].as_array().unwrap().iter().map(|p| p["at"].as_i64().unwrap()).collect();
        assert_eq!(ats, [0, 7, 14, 21, 28, 35, 42, 49]);
        assert_eq!(v["pair"], json!([1, 2]));
        assert_eq!(cuts, [Cut { key: "stalls".into(), kept: 8, of: 50 }]);
        // Events (rows with words) are capped, not M4-cut, and noted.
        let events: Vec<Value> = (0..1000).map(|k| json!({"t": k as f64 * 0.001, "kind": "lost-between", "seq": k * 100})).collect();
        let mut e = json!({"events": events});
        let mut cuts = Vec::new();
        resample(&mut e, &Grid { t0: 0.0, t1: 1.0, columns: 10 }, Some(8), &mut cuts);
        assert_eq!(cuts, [Cut { key: "events".into(), kept: 8, of: 1000 }]);
    }

    #[test]
    fn floats_of_series_keep_fourteen_bits() {
        let mut rows = vec![json!({"t": 0.0123456789, "v": 47.123456}), json!({"t": 9.87654321, "v": 1.0})];
        quantize(&mut rows);
        // 9.88 / 16 384 = 6.0e-4 → steps of 5e-4 s; 47.1 / 16 384 = 2.9e-3 → 2e-3 ms.
        assert_eq!(rows[0], json!({"t": 0.0125, "v": 47.124}));
        assert_eq!(rows[1], json!({"t": 9.8765, "v": 1.0}));
        assert_eq!(span(&json!({"a": [{"t": 1.0, "width": 0.5}], "b": {"c": [{"t": -0.25}]}})), Some((-0.25, 1.5)));
    }
}
