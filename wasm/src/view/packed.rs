//! The view answer as numbers instead of JSON text, for the worker: the same
//! [`ViewResponse`] that `query_json` serialises (one query function answers both),
//! split into a small JSON header — everything but the per-column arrays — and two
//! flat arrays the binding hands to JavaScript as one Float64Array and one
//! Uint32Array, which the worker slices and transfers to the page without parsing
//! (issue 14: the JSON of a 1600-column answer cost more than the query).
//!
//! [`LAYOUTS`] is the layout, once: `pack` writes by it, and it is generated into
//! `web/worker/generated/vocabulary.ts` (`PACKED_LAYOUT`), by which the worker reads
//! (viewAnswer.ts `unpackAnswer`); tests/view_packed.rs reads by it too and finds the
//! JSON answer again. For each answer kind: u32s starts with the lengths (`n` entries
//! per array, then `m` markers for points), then the u32 arrays in the table's order;
//! f64s holds the f64 arrays in the table's order. A `markers.*` array is present only
//! when the header's `markers` is not null (the header then keeps `markers` with empty
//! arrays). Intervals, the Wi-Fi strip and errors: both arrays empty, all in the header.

use super::response::{Bins, Markers, Points, ViewData, ViewResponse};

/// How an array travels: as f64 (exact below 2^53, as in JSON; NaN where the JSON says
/// null) or as u32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    F64,
    U32,
}

/// An array's length: `n` (entries per array) or `m` (markers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    N,
    M,
}

/// One array of a packed answer: its place in the JSON answer (`markers.t` is the
/// `t` of the `markers` object), how it travels and its length.
#[derive(Clone, Copy, Debug)]
pub struct Array {
    pub path: &'static str,
    pub element: Element,
    pub length: Length,
}

/// The packed layout of one answer kind (`ViewData`'s `kind`).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub kind: &'static str,
    /// The lengths at the head of u32s, in order.
    pub lengths: &'static [Length],
    /// The arrays, in the order they follow in u32s and in f64s.
    pub arrays: &'static [Array],
}

const fn a(path: &'static str, element: Element, length: Length) -> Array {
    Array { path, element, length }
}

use Element::{F64, U32};
use Length::{M, N};

/// The layout, once (see the module comment).
pub const LAYOUTS: &[Layout] = &[
    Layout { kind: "bins", lengths: &[N], arrays: &[a("bytes", F64, N), a("bps", F64, N), a("averageBps", F64, N)] },
    Layout {
        kind: "points",
        lengths: &[N, M],
        arrays: &[
            a("column", U32, N),
            a("count", U32, N),
            a("markers.flags", U32, M),
            a("markers.frame", U32, M),
            a("markers.count", U32, M),
            a("tFirst", F64, N),
            a("first", F64, N),
            a("tLast", F64, N),
            a("last", F64, N),
            a("min", F64, N),
            a("max", F64, N),
            a("markers.t", F64, M),
            a("markers.v", F64, M),
        ],
    },
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedResponse {
    pub header: String,
    pub f64s: Vec<f64>,
    pub u32s: Vec<u32>,
}

/// An array of the answer as it is held in Rust.
enum Values<'a> {
    F64(&'a [f64]),
    OptionF64(&'a [Option<f64>]),
    U64(&'a [u64]),
    U32(&'a [u32]),
}

impl Bins {
    /// The array at `path` of [`LAYOUTS`] (the serde name of the field).
    fn array(&self, path: &str) -> Values<'_> {
        match path {
            "bytes" => Values::U64(&self.bytes),
            "bps" => Values::F64(&self.bps),
            "averageBps" => Values::OptionF64(&self.average_bps),
            _ => Values::F64(&[]),
        }
    }
}

impl Points {
    fn array(&self, path: &str) -> Values<'_> {
        static NONE: Markers = Markers::EMPTY;
        let m = self.markers.as_ref().unwrap_or(&NONE);
        match path {
            "column" => Values::U32(&self.column),
            "count" => Values::U32(&self.count),
            "tFirst" => Values::F64(&self.t_first),
            "first" => Values::F64(&self.first),
            "tLast" => Values::F64(&self.t_last),
            "last" => Values::F64(&self.last),
            "min" => Values::F64(&self.min),
            "max" => Values::F64(&self.max),
            "markers.flags" => Values::U32(&m.flags),
            "markers.frame" => Values::U32(&m.frame),
            "markers.count" => Values::U32(&m.count),
            "markers.t" => Values::F64(&m.t),
            "markers.v" => Values::F64(&m.v),
            _ => Values::F64(&[]),
        }
    }
}

impl Markers {
    const EMPTY: Markers = Markers { t: Vec::new(), v: Vec::new(), flags: Vec::new(), frame: Vec::new(), count: Vec::new() };
}

/// Writes the arrays of one answer by `layout`; `n`, `m`: the lengths.
fn write<'a>(layout: &Layout, lengths: [usize; 2], array: impl Fn(&str) -> Values<'a>, out: &mut PackedResponse) {
    for l in layout.lengths {
        out.u32s.push(lengths[*l as usize] as u32);
    }
    for spec in layout.arrays {
        match (spec.element, array(spec.path)) {
            (Element::F64, Values::F64(v)) => out.f64s.extend_from_slice(v),
            (Element::F64, Values::OptionF64(v)) => out.f64s.extend(v.iter().map(|x| x.unwrap_or(f64::NAN))),
            (Element::F64, Values::U64(v)) => out.f64s.extend(v.iter().map(|&x| x as f64)),
            (Element::U32, Values::U32(v)) => out.u32s.extend_from_slice(v),
            // A layout that names an array as the other element: a bug the test catches.
            _ => {}
        }
    }
}

pub fn pack(mut r: ViewResponse) -> PackedResponse {
    let layout = |kind: &str| LAYOUTS.iter().find(|l| l.kind == kind).expect("a layout per packed kind");
    let mut out = PackedResponse::default();
    match &mut r.data {
        ViewData::Bins(b) => {
            let taken = std::mem::take(b).with_scalars_of(b);
            write(layout("bins"), [taken.bytes.len(), 0], |p| taken.array(p), &mut out);
        }
        ViewData::Points(p) => {
            let taken = std::mem::take(p).with_scalars_of(p);
            let m = taken.markers.as_ref().map_or(0, |m| m.t.len());
            write(layout("points"), [taken.column.len(), m], |path| taken.array(path), &mut out);
        }
        // Intervals and the Wi-Fi strip's few bins stay in the JSON header.
        ViewData::Intervals(_) | ViewData::Wifi(_) | ViewData::None => {}
    }
    out.header = serde_json::to_string(&r).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    out
}

impl Bins {
    /// Moves the arrays out, leaving `kept` with this answer's scalars and empty arrays.
    fn with_scalars_of(self, kept: &mut Bins) -> Bins {
        (kept.start, kept.average_bins, kept.loading) = (self.start, self.average_bins, self.loading);
        self
    }
}

impl Points {
    /// Moves the arrays out, leaving `kept` with this answer's scalars (and empty
    /// markers when there are markers) and empty arrays.
    fn with_scalars_of(self, kept: &mut Points) -> Points {
        (kept.before, kept.after, kept.total) = (self.before, self.after, self.total);
        kept.markers = self.markers.as_ref().map(|_| Markers::default());
        self
    }
}
