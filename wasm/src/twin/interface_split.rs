//! The split by interface (twin/interfaces.rs, step 2): each pcapng block routed to the
//! side of its interface, never decoded, then merged (`InterfaceTwin`) or written out as
//! two files (`SplitFiles`, the page's).

use super::interfaces::probe;
use super::pcapng_blocks::{Blocks, Route};
use super::{TwinReport, TwinStream, VantageInterfaces, MAX_TWIN_CAPTURE_BYTES};
use crate::analysis::AnalysisOptions;
use crate::error::DecodeError;

/// Step 2: the file's blocks routed to two sides by interface.
pub struct InterfaceSplit {
    blocks: Blocks,
    pub(super) sides: [u32; 2],
    /// Packet blocks of other interfaces, routed to neither.
    left_out: u64,
}

impl InterfaceSplit {
    /// `sides`: the interface of side 0 and of side 1 (`VantageInterfaces::sides`).
    pub fn new(sides: [u32; 2]) -> Self {
        InterfaceSplit { blocks: Blocks::default(), sides, left_out: 0 }
    }

    /// Routes the blocks of `chunk`: `emit(side, bytes)` for each (both sides for a
    /// non-packet block); false after a damaged block (`error`).
    pub fn push(&mut self, chunk: &[u8], emit: &mut dyn FnMut(usize, &[u8])) -> bool {
        let (sides, left_out) = (self.sides, &mut self.left_out);
        self.blocks.push(chunk, &mut |route, block| match route {
            Route::All => {
                emit(0, block);
                emit(1, block);
            }
            Route::Interface(i) => match sides.iter().position(|&s| s == i) {
                Some(k) => emit(k, block),
                None => *left_out += 1,
            },
        })
    }

    /// The damaged block the split stopped at, if any.
    pub fn error(&self) -> Option<&DecodeError> {
        self.blocks.error.as_ref()
    }

    /// Bytes of a block cut short at the end (the file ends inside it).
    pub fn unfinished(&self) -> usize {
        self.blocks.buf.len()
    }

    /// What a merge report says about the split beyond the two sides: packets of other
    /// interfaces left out, a damaged block, a file cut inside a block.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.left_out > 0 {
            notes.push(format!("{} packets of interfaces other than {} and {} were left out of the merge.", self.left_out, self.sides[0], self.sides[1]));
        }
        if let Some(e) = self.error() {
            notes.push(format!("The split by interface stopped: {} Both sides are merged up to there.", e.message));
        } else if self.unfinished() > 0 {
            notes.push(format!("The file ends inside a block (its last {} bytes): both sides are merged up to it.", self.unfinished()));
        }
        notes
    }
}

/// The split written out as two capture files (the page opens them as the two captures
/// of a compare view): each side's bytes wait in `pending` until taken, and each side
/// stops at twin/stream.rs `MAX_TWIN_CAPTURE_BYTES`, the most the merge takes of one.
pub struct SplitFiles {
    split: InterfaceSplit,
    pending: [Vec<u8>; 2],
    written: [usize; 2],
    too_large: Option<usize>,
}

impl SplitFiles {
    pub fn new(sides: [u32; 2]) -> Self {
        SplitFiles { split: InterfaceSplit::new(sides), pending: Default::default(), written: [0, 0], too_large: None }
    }

    /// The next chunk of the file; false once the split stopped (a damaged block, or a
    /// side over the cap: `finish` says which).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        if self.too_large.is_some() {
            return false;
        }
        let Self { split, pending, written, too_large } = self;
        let ok = split.push(chunk, &mut |k, block| {
            written[k] += block.len();
            if written[k] > MAX_TWIN_CAPTURE_BYTES {
                too_large.get_or_insert(k);
            } else if too_large.is_none() {
                pending[k].extend_from_slice(block);
            }
        });
        ok && self.too_large.is_none()
    }

    /// Side `k`'s bytes routed since the last take.
    pub fn take(&mut self, k: usize) -> Vec<u8> {
        self.pending.get_mut(k).map(std::mem::take).unwrap_or_default()
    }

    /// The split's notes (`InterfaceSplit::notes`), or why there are no two files.
    pub fn finish(&self) -> Result<Vec<String>, String> {
        match self.too_large {
            Some(k) => Err(format!("The packets of interface {} come to more than {} MiB, more than the merge takes of one capture: save the connection alone first (\"Save for Wireshark\" or tcpscope slice), then merge its two interfaces.", self.split.sides[k], MAX_TWIN_CAPTURE_BYTES >> 20)),
            None => Ok(self.split.notes()),
        }
    }
}

/// The merge of a file's two vantage points: the split's sides streamed into the merge
/// (twin/stream.rs) as two captures, interface `sides[0]` as the first.
pub struct InterfaceTwin {
    split: InterfaceSplit,
    twin: TwinStream,
}

impl InterfaceTwin {
    pub fn new(sides: [u32; 2], options: AnalysisOptions) -> Self {
        InterfaceTwin { split: InterfaceSplit::new(sides), twin: TwinStream::new(options) }
    }

    /// The next chunk of the file; false once neither side takes more.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.route(chunk, None)
    }

    /// `push` for inflated gzip input (`compressed`: compressed bytes read so far; the
    /// inflate caps then apply to each side as to one capture).
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: u64) -> bool {
        self.route(chunk, Some(compressed))
    }

    fn route(&mut self, chunk: &[u8], compressed: Option<u64>) -> bool {
        let twin = &mut self.twin;
        let mut taking = [true, true];
        let ok = self.split.push(chunk, &mut |k, block| {
            if taking[k] {
                taking[k] = match compressed {
                    Some(c) => twin.push_inflated(k, block, c),
                    None => twin.push(k, block),
                };
            }
        });
        ok && taking.iter().any(|&t| t)
    }

    /// The merge, with the split's own notes.
    pub fn finish(&mut self) -> TwinReport {
        let mut report = self.twin.finish().clone();
        report.notes.extend(self.split.notes());
        report
    }
}

/// A whole file in memory: probed, then its two vantage points merged; Err with the
/// probe's answer when no two interfaces are.
pub fn merge_interfaces(bytes: &[u8], options: AnalysisOptions) -> Result<TwinReport, VantageInterfaces> {
    let found = probe(bytes);
    let Some(sides) = found.sides else { return Err(found) };
    let mut twin = InterfaceTwin::new(sides, options);
    for chunk in bytes.chunks(1 << 20) {
        if !twin.push(chunk) {
            break;
        }
    }
    Ok(twin.finish())
}
