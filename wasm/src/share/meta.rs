//! The JSON part of a snapshot — the capture report's head and the one connection's
//! summary, exactly as `tcpscope analyze --json` writes them — checked field by
//! field before anything is drawn from it. A link is text anyone can edit, so every
//! field the page reads is checked for its type and its range (times within
//! `MAX_ABS_T`, the end not before the start, shares within 0..1, counts whole and
//! ≥ 0); the error names the first bad field. Unknown extra fields are kept (a newer
//! writer may add some).

use crate::view::request::{fmt_t, MAX_ABS_T};
use crate::boundary::words;
use serde_json::Value;

use super::answer_bytes::CAUSES;

/// Longest string field (a diagnosis text is a few hundred bytes).
const MAX_STRING: usize = 20_000;
/// Longest name or label (a process name, an endpoint, a method): the page shows at most
/// 120 characters of one (cli/outsideText.mjs), so a 60,000-character name is no name.
const MAX_LABEL: usize = 1_000;
/// Most episodes, RTO chains (and the intervals of one) a summary may list.
const MAX_EPISODES: usize = 10_000;
const MAX_CHAIN_INTERVALS: usize = 64;
// The closed sets a summary's fields take: the one vocabulary's (boundary/words.rs).
fn vantages() -> [&'static str; 4] {
    words::VANTAGES.map(|v| words::vantage(v).wire)
}
fn verdicts() -> [&'static str; 7] {
    words::VERDICTS.map(|t| t.wire)
}
fn episode_kinds() -> [&'static str; 7] {
    words::EPISODE_KINDS.map(|t| t.wire)
}
const WINDOW_SCALING: [&str; 3] = ["negotiated", "absent", "not-captured"];
/// `syn.stack` (analysis/track/syn_stack.rs `SynStack::name`).
const SYN_STACKS: [&str; 3] = ["linux", "windows", "apple"];
/// Most stalls per direction in a summary (view/stalls.rs MAX_STALLS).
const MAX_STALLS: usize = crate::view::stalls::MAX_STALLS as usize;
fn limits() -> [&'static str; 12] {
    words::LIMITS.map(|t| t.wire)
}

type Check<'a> = &'a dyn Fn(&Value, &str) -> Result<(), String>;

fn fail(path: &str, expected: &str) -> String {
    format!("field {path} should be {expected}")
}

fn field<'v>(v: &'v Value, path: &str, key: &str) -> Result<(&'v Value, String), String> {
    let obj = v.as_object().ok_or_else(|| fail(path, "an object"))?;
    Ok((obj.get(key).unwrap_or(&Value::Null), format!("{path}.{key}")))
}

fn number(v: &Value, path: &str, lo: f64, hi: f64) -> Result<f64, String> {
    match v.as_f64() {
        Some(x) if (lo..=hi).contains(&x) => Ok(x),
        Some(x) => Err(format!("field {path} is {}, outside {}..{}", fmt_t(x), fmt_t(lo), fmt_t(hi))),
        None => Err(fail(path, "a number")),
    }
}

fn nonneg(v: &Value, p: &str) -> Result<(), String> {
    number(v, p, 0.0, 1e18).map(|_| ())
}
fn count(v: &Value, p: &str) -> Result<(), String> {
    match v.as_u64() {
        Some(_) => Ok(()),
        None => Err(fail(p, "a whole number ≥ 0")),
    }
}
fn time(v: &Value, p: &str) -> Result<(), String> {
    number(v, p, -MAX_ABS_T, MAX_ABS_T).map(|_| ())
}
fn share(v: &Value, p: &str) -> Result<(), String> {
    number(v, p, 0.0, 1.0).map(|_| ())
}
fn string(v: &Value, p: &str) -> Result<(), String> {
    match v.as_str() {
        Some(s) if s.len() <= MAX_STRING => Ok(()),
        _ => Err(fail(p, "a string")),
    }
}
fn boolean(v: &Value, p: &str) -> Result<(), String> {
    v.as_bool().map(|_| ()).ok_or_else(|| fail(p, "true or false"))
}
fn nullable<'a>(check: Check<'a>) -> impl Fn(&Value, &str) -> Result<(), String> + 'a {
    move |v, p| if v.is_null() { Ok(()) } else { check(v, p) }
}
fn one_of<'a>(values: &'a [&'a str]) -> impl Fn(&Value, &str) -> Result<(), String> + 'a {
    move |v, p| match v.as_str() {
        Some(s) if values.contains(&s) => Ok(()),
        _ => Err(fail(p, &format!("one of {}", values.join(", ")))),
    }
}
fn fields(v: &Value, path: &str, checks: &[(&str, Check)]) -> Result<(), String> {
    for (key, check) in checks {
        let (x, p) = field(v, path, key)?;
        check(x, &p)?;
    }
    Ok(())
}
/// Fields a newer writer added: an older link may lack them, but one that is present
/// must be well-formed (issue 45, item 8: the page reads every one of these).
fn optional_fields(v: &Value, path: &str, checks: &[(&str, Check)]) -> Result<(), String> {
    let obj = v.as_object().ok_or_else(|| fail(path, "an object"))?;
    for (key, check) in checks {
        if let Some(x) = obj.get(*key) {
            check(x, &format!("{path}.{key}"))?;
        }
    }
    Ok(())
}
fn finite(v: &Value, p: &str) -> Result<(), String> {
    number(v, p, -1e18, 1e18).map(|_| ())
}
/// A short label (a method name, a stall's `endedBy`): one line, not a paragraph.
fn label(v: &Value, p: &str) -> Result<(), String> {
    match v.as_str() {
        Some(s) if s.len() <= MAX_LABEL => Ok(()),
        _ => Err(fail(p, &format!("a string of at most {MAX_LABEL} bytes"))),
    }
}
fn list(v: &Value, path: &str, max: usize, item: Check) -> Result<(), String> {
    match v.as_array() {
        Some(a) if a.len() <= max => a.iter().enumerate().try_for_each(|(i, x)| item(x, &format!("{path}[{i}]"))),
        Some(a) => Err(format!("field {path} holds {} entries, more than {max}", a.len())),
        None => Err(fail(path, "a list")),
    }
}

fn stall(v: &Value, p: &str) -> Result<(), String> {
    fields(v, p, &[("start", &time), ("duration", &|v, p| number(v, p, 0.0, MAX_ABS_T).map(|_| ())), ("cause", &one_of(&CAUSES)), ("frameBefore", &count), ("frameAfter", &count), ("endedBy", &label)])
}

fn direction(v: &Value, p: &str) -> Result<(), String> {
    let counts = ["packets", "payloadBytes", "bytes", "retransmissions", "fastRetransmissions", "spuriousRetransmissions", "duplicateAcks", "zeroWindows", "zeroWindowProbes", "windowFull", "keepAlives", "lostSegments", "outOfOrder"];
    for key in counts {
        let (x, path) = field(v, p, key)?;
        count(x, &path)?;
    }
    fields(v, p, &[
        ("from", &label),
        ("to", &label),
        ("windowScale", &nullable(&|v, p| number(v, p, 0.0, 14.0).map(|_| ()))),
        ("windowScaleUnknown", &boolean),
        ("windowScaleLowerBound", &nullable(&|v, p| number(v, p, 0.0, 14.0).map(|_| ()))),
        ("receiveWindow", &nullable(&|v, p| fields(v, p, &[("min", &nonneg), ("max", &nonneg)]))),
        ("maxBytesInFlight", &nullable(&nonneg)),
        ("throughput", &|v, p| fields(v, p, &[("meanBps", &nonneg), ("peakBps", &nonneg), ("binSeconds", &|v, p| number(v, p, 1e-9, MAX_ABS_T).map(|_| ()))])),
        ("rtt", &|v, p| fields(v, p, &[("minMs", &nullable(&nonneg)), ("medianMs", &nullable(&nonneg))])),
        ("stalls", &|v, p| list(v, p, MAX_STALLS, &stall)),
    ])?;
    let nullable_count = nullable(&count);
    let nullable_nonneg = nullable(&nonneg);
    optional_fields(v, p, &[
        ("rtoEvents", &count), ("tailLossProbes", &count), ("slowStartRetransmissions", &count), ("pmtuRetransmissions", &count), ("backToBackDuplicates", &count),
        ("retransmittedSegments", &count), ("fastRetransmittedSegments", &count), ("slowStartRetransmittedSegments", &count),
        ("unseenDatagrams", &nullable_count),
        ("lostAfterCapture", &count),
        ("unseenResends", &count),
        ("senderLagMs", &finite),
        ("stallSeconds", &nonneg),
        ("rtoChains", &|v, p| list(v, p, MAX_EPISODES, &|v, p| fields(v, p, &[
            ("start", &time), ("timeouts", &count), ("intervalsMs", &|v, p| list(v, p, MAX_CHAIN_INTERVALS, &nonneg)),
        ]))),
        ("ecn", &nullable(&|v, p| {
            fields(v, p, &[("ect0", &count), ("ect1", &count), ("ce", &count)])?;
            optional_fields(v, p, &[("ece", &nullable_count), ("cwr", &nullable_count)])
        })),
    ])?;
    let (t, path) = field(v, p, "throughput")?;
    optional_fields(t, &path, &[("activeMeanBps", &nonneg)])?;
    let (r, path) = field(v, p, "rtt")?;
    optional_fields(r, &path, &[
        ("p95Ms", &nullable_nonneg), ("maxMs", &nullable_nonneg), ("samples", &count), ("excludedSamples", &count),
        ("followedSamples", &count), ("offsetMs", &finite), ("offsetFollows", &boolean),
    ])?;
    // Links of format 4 list only the stalls the shared view shows (build.rs); a
    // shortened list says how many there were (build.rs `ListedStalls`).
    let (x, path) = field(v, p, "stallCount")?;
    if !x.is_null() {
        let listed = v["stalls"].as_array().map_or(0, Vec::len) as u64;
        match x.as_u64() {
            Some(n) if n >= listed && n <= MAX_STALLS as u64 => {}
            Some(n) if n < listed => return Err(format!("field {path} is {n}, fewer than the {listed} stalls listed")),
            _ => return Err(fail(&path, &format!("a whole number ≤ {MAX_STALLS}"))),
        }
    }
    Ok(())
}

fn syn_options(v: &Value, p: &str) -> Result<(), String> {
    fields(v, p, &[
        ("from", &label),
        ("mss", &nullable(&|v, p| number(v, p, 0.0, 65_535.0).map(|_| ()))),
        ("windowScale", &nullable(&|v, p| number(v, p, 0.0, 255.0).map(|_| ()))),
        ("sackPermitted", &boolean),
        ("timestamps", &boolean),
    ])?;
    optional_fields(v, p, &[("ecn", &boolean), ("accecn", &boolean), ("tfo", &boolean), ("mptcp", &boolean), ("stack", &one_of(&SYN_STACKS))])
}

fn handshake(v: &Value, p: &str) -> Result<(), String> {
    fields(v, p, &[("syn", &nullable(&syn_options)), ("synAck", &nullable(&syn_options)), ("windowScaling", &one_of(&WINDOW_SCALING))])
}

/// Checks a connection summary; Err names the first bad field.
pub fn summary(v: &Value) -> Result<(), String> {
    let p = "summary";
    fields(v, p, &[
        // A whole number: a fractional id matched no connection and drew empty charts.
        ("id", &|v, p| match v.as_u64() {
            Some(n) if n <= u32::MAX as u64 => Ok(()),
            _ => Err(fail(p, "a whole connection number")),
        }),
        ("endpoints", &|v, p| list(v, p, 2, &label).and_then(|_| if v.as_array().map(Vec::len) == Some(2) { Ok(()) } else { Err(fail(p, "a list of 2")) })),
        ("handshakeSeen", &boolean),
        ("packets", &count),
        ("start", &time),
        ("end", &time),
        // Links made before it lack it (null): the page then opens on the whole connection.
        ("dataView", &nullable(&|v, p| list(v, p, 2, &time).and_then(|_| match v.as_array().map(|a| (a.len(), a[0].as_f64(), a[1].as_f64())) {
            Some((2, Some(a), Some(b))) if a <= b => Ok(()),
            _ => Err(fail(p, "a list of 2 times, the first not after the second")),
        }))),
        ("dataDirection", &|v, p| number(v, p, 0.0, 1.0).and_then(|x| if x == 0.0 || x == 1.0 { Ok(()) } else { Err(fail(p, "0 or 1")) })),
        ("stallThresholdMs", &|v, p| if v.is_null() { Ok(()) } else { number(v, p, 1e-6, 1e12).map(|_| ()) }),
        ("directions", &|v, p| list(v, p, 2, &direction).and_then(|_| if v.as_array().map(Vec::len) == Some(2) { Ok(()) } else { Err(fail(p, "a list of 2")) })),
        ("diagnosis", &|v, p| fields(v, p, &[
            ("limit", &one_of(&limits())),
            ("text", &string),
            // `turns` is newer (issue 39 review I class T): links made before it lack it.
            ("shares", &|v, p| fields(v, p, &[("receiveWindow", &share), ("loss", &share), ("application", &share), ("stalled", &share), ("other", &share)])
                .and_then(|_| optional_fields(v, p, &[("turns", &share)]))),
        ])),
    ])?;
    let nullable_nonneg = nullable(&nonneg);
    optional_fields(v, p, &[
        ("vantage", &one_of(&vantages())),
        ("pathRttMs", &nullable_nonneg),
        ("pathRttMethod", &label),
        ("senderLagMs", &finite),
        ("baseRttMs", &nullable_nonneg),
        ("captureLoss", &|v, p| fields(v, p, &[("unseenSegments", &count), ("unseenBytes", &count)])),
        ("process", &nullable(&|v, p| fields(v, p, &[("name", &label), ("pid", &count)]))),
        ("handshake", &nullable(&handshake)),
    ])?;
    let (d, path) = field(v, p, "diagnosis")?;
    optional_fields(d, &path, &[
        ("evidence", &|v, p| {
            fields(v, p, &[("rttMs", &nullable_nonneg), ("windowBytes", &nullable_nonneg), ("windowInferred", &boolean), ("rateBps", &nullable_nonneg), ("capBps", &nullable_nonneg), ("verdict", &one_of(&verdicts()))])?;
            optional_fields(v, p, &[("linkRateBps", &nullable_nonneg)])
        }),
        ("farPartUnseen", &boolean),
        ("episodes", &|v, p| list(v, p, MAX_EPISODES, &|v, p| {
            fields(v, p, &[("start", &time), ("end", &time), ("kind", &one_of(&episode_kinds())), ("text", &string)])?;
            if v["end"].as_f64() < v["start"].as_f64() {
                return Err(format!("field {p}.end is before {p}.start"));
            }
            Ok(())
        })),
    ])?;
    let (start, end) = (v["start"].as_f64().unwrap_or(0.0), v["end"].as_f64().unwrap_or(0.0));
    if end < start {
        return Err(format!("field summary.end ({}) is before summary.start ({})", fmt_t(end), fmt_t(start)));
    }
    Ok(())
}

/// Checks the report without its connection list.
pub fn report_head(v: &Value) -> Result<(), String> {
    fields(v, "report", &[
        ("schemaVersion", &count),
        ("capture", &|v, p| fields(v, p, &[
            ("format", &|v, p| if v.is_null() { Ok(()) } else { one_of(&["pcap", "pcapng"])(v, p) }),
            ("linkTypes", &|v, p| list(v, p, 1000, &label)),
            ("packets", &count),
            ("bytes", &count),
            ("duration", &|v, p| number(v, p, 0.0, 2.0 * MAX_ABS_T).map(|_| ())),
        ]).and_then(|_| optional_fields(v, p, &[("duplicateFrames", &count), ("wifiRetries", &count), ("timestampResolutionMs", &nullable(&nonneg))]))),
        ("error", &nullable(&|v, p| fields(v, p, &[("message", &string), ("packetIndex", &nullable(&count)), ("byteOffset", &nullable(&count))]))),
        ("warnings", &|v, p| list(v, p, 10_000, &|v, p| fields(v, p, &[("kind", &string), ("count", &count), ("message", &string)]))),
    ])?;
    optional_fields(v, "report", &[("warningTotals", &|v, p| fields(v, p, &[("notAnalysed", &count), ("unreadable", &count), ("repaired", &count)]))])
}

/// The JSON part of a snapshot after its checks.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub name: String,
    /// The view as a URL fragment (`c=1&charts=…`), as the page wrote it.
    pub view: String,
    /// The report with `connections: [summary]`.
    pub report: Value,
}

impl Meta {
    pub fn summary(&self) -> &Value {
        &self.report["connections"][0]
    }
}

/// `{name, view, report (no connections), summary}` → Meta, or the first bad field.
pub fn parse(v: Value) -> Result<Meta, String> {
    fields(&v, "snapshot", &[("name", &string), ("view", &string)])?;
    let (name, view) = (v["name"].as_str().unwrap_or("").chars().take(300).collect(), v["view"].as_str().unwrap_or("").chars().take(2000).collect());
    let Value::Object(mut obj) = v else { return Err(fail("snapshot", "an object")) };
    let mut report = obj.remove("report").unwrap_or(Value::Null);
    let summary_value = obj.remove("summary").unwrap_or(Value::Null);
    report_head(&report)?;
    summary(&summary_value)?;
    if let Value::Object(r) = &mut report {
        r.insert("connections".into(), Value::Array(vec![summary_value]));
    }
    Ok(Meta { name, view, report })
}

/// The meta object a writer stores: the report's head and the connection's summary.
pub fn to_value(name: &str, view: &str, report: &Value, summary: &Value) -> Value {
    let mut head = report.clone();
    if let Value::Object(r) = &mut head {
        r.remove("connections");
    }
    serde_json::json!({ "name": name.chars().take(300).collect::<String>(), "view": view, "report": head, "summary": summary })
}
