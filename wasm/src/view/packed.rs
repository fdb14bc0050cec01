//! The view answer as numbers instead of JSON text, for the worker: the same
//! [`ViewResponse`] that `query_json` serialises (one query function answers both),
//! split into a small JSON header — everything but the per-column arrays — and two
//! flat arrays the binding hands to JavaScript as one Float64Array and one
//! Uint32Array, which the worker slices and transfers to the page without parsing
//! (issue 14: the JSON of a 1600-column answer cost more than the query).
//!
//! Layout (n = entries per array, m = markers; web/worker/viewAnswer.ts reads it):
//! - bins: u32s = [n]; f64s = bytes[n] (exact below 2^53, as in JSON), bps[n],
//!   averageBps[n] (NaN where the JSON says null);
//! - points: u32s = [n, m, column[n], count[n], markers' flags[m], frame[m],
//!   count[m]]; f64s = tFirst[n], first[n], tLast[n], last[n], min[n], max[n],
//!   markers' t[m], v[m]; the header keeps `markers` (empty arrays) when there are;
//! - intervals and none: both arrays empty, everything in the header.

use super::response::{Bins, Markers, Points, ViewData, ViewResponse};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedResponse {
    pub header: String,
    pub f64s: Vec<f64>,
    pub u32s: Vec<u32>,
}

pub fn pack(mut r: ViewResponse) -> PackedResponse {
    let (mut f64s, mut u32s) = (Vec::new(), Vec::new());
    match &mut r.data {
        ViewData::Bins(b) => {
            let Bins { bytes, bps, average_bps, .. } = std::mem::take(b).with_scalars_of(b);
            u32s.push(bytes.len() as u32);
            f64s.reserve(3 * bytes.len());
            f64s.extend(bytes.iter().map(|&x| x as f64));
            f64s.extend(bps);
            f64s.extend(average_bps.iter().map(|x| x.unwrap_or(f64::NAN)));
        }
        ViewData::Points(p) => {
            let Points { column, count, t_first, first, t_last, last, min, max, markers, .. } = std::mem::take(p).with_scalars_of(p);
            let m = markers.unwrap_or_default();
            u32s.extend([column.len() as u32, m.t.len() as u32]);
            for a in [column, count, m.flags, m.frame, m.count] {
                u32s.extend(a);
            }
            for a in [t_first, first, t_last, last, min, max, m.t, m.v] {
                f64s.extend(a);
            }
        }
        // Intervals and the Wi-Fi strip's few bins stay in the JSON header.
        ViewData::Intervals(_) | ViewData::Wifi(_) | ViewData::None => {}
    }
    let header = serde_json::to_string(&r).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    PackedResponse { header, f64s, u32s }
}

impl Bins {
    /// Moves the arrays out, leaving `kept` with this answer's scalars and empty arrays.
    fn with_scalars_of(self, kept: &mut Bins) -> Bins {
        (kept.start, kept.average_bins) = (self.start, self.average_bins);
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
