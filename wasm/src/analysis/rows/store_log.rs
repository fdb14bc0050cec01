//! The byte log under the compact store (store.rs): LEB128 varints, zigzag for
//! signed values, appended a row at a time into chunks that double up to
//! [`CHUNK_MAX`] and stay that size after (at most one chunk of slack per log).

/// Largest chunk: big enough that per-chunk overhead is nil, small enough that the
/// unused tail of the last chunk stays negligible next to the data.
const CHUNK_MAX: usize = 64 * 1024;
/// First chunk of a log: most connections of a port scan hold a few rows.
const CHUNK_MIN: usize = 32;
/// Longest encoded row: ten varints of at most 10 bytes (the room a full-size chunk
/// must have to take a row).
const ROW_MAX: usize = 100;

/// An append-only byte log in chunks (see module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ByteLog {
    chunks: Vec<Vec<u8>>,
}

impl ByteLog {
    /// A writer for the next row, encoding straight into the last chunk: no row
    /// buffer on the stack to clear and then copy in, for every packet and RTT sample
    /// (bench/README.md, session 11).
    /// A row never straddles chunks: a chunk at [`CHUNK_MAX`] takes a row only with
    /// room for the longest one, and a smaller chunk doubles (one copy) when a row
    /// needs it, as chunks have always grown.
    #[inline]
    pub(crate) fn row(&mut self) -> RowWriter<'_> {
        let room = match self.chunks.last() {
            Some(c) => c.capacity() < CHUNK_MAX || c.capacity() - c.len() >= ROW_MAX,
            None => false,
        };
        if !room {
            self.start_chunk();
        }
        RowWriter { chunk: self.chunks.last_mut().expect("a chunk was just ensured") }
    }

    #[cold]
    #[inline(never)]
    fn start_chunk(&mut self) {
        let cap = if self.chunks.is_empty() { CHUNK_MIN } else { CHUNK_MAX };
        // Most logs keep their first chunk alone: room for one (crate::lean).
        crate::lean::push(&mut self.chunks, Vec::with_capacity(cap));
    }

    /// Releases the slack of the last chunk (end of capture).
    pub(crate) fn shrink(&mut self) {
        if let Some(c) = self.chunks.last_mut() {
            c.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }

    /// Gives back the unused room of a log still in its first, growing chunk (a
    /// connection gone quiet: analyzer.rs `release_quiet`): a row written later grows it
    /// again as before; a full-size chunk keeps its room. Only capacity changes.
    pub(crate) fn release_slack(&mut self) {
        if let Some(c) = self.chunks.last_mut().filter(|c| c.capacity() < CHUNK_MAX) {
            c.shrink_to_fit();
        }
    }

    /// Bytes held, including unused capacity.
    pub fn allocated(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity()).sum::<usize>() + self.chunks.capacity() * std::mem::size_of::<Vec<u8>>()
    }

    pub(crate) fn reader(&self) -> Reader<'_> {
        Reader { rest: self.chunks.iter(), cur: &[], pos: 0 }
    }
}

/// Rows never straddle chunks (a row is appended whole), so reading only moves to
/// the next chunk between rows.
pub(crate) struct Reader<'a> {
    rest: std::slice::Iter<'a, Vec<u8>>,
    cur: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    #[inline]
    pub(crate) fn at_row_start(&mut self) -> bool {
        while self.pos >= self.cur.len() {
            match self.rest.next() {
                Some(c) => (self.cur, self.pos) = (c.as_slice(), 0),
                None => return false,
            }
        }
        true
    }
    #[inline]
    pub(crate) fn u64(&mut self) -> u64 {
        // One-byte values (most deltas) take the first branch only.
        let b = self.cur[self.pos];
        self.pos += 1;
        if b < 0x80 {
            return b as u64;
        }
        let (mut v, mut shift) = ((b & 0x7f) as u64, 7u32);
        loop {
            let b = self.cur[self.pos];
            self.pos += 1;
            v |= ((b & 0x7f) as u64) << (shift & 63);
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }
    #[inline]
    pub(crate) fn i64(&mut self) -> i64 {
        unzigzag(self.u64())
    }
    /// 0 = none, else zigzag(delta) + 1.
    #[inline]
    pub(crate) fn opt(&mut self) -> Option<i64> {
        match self.u64() {
            0 => None,
            v => Some(unzigzag(v - 1)),
        }
    }
}

/// A row being encoded into its chunk (`ByteLog::row`).
pub(crate) struct RowWriter<'a> {
    chunk: &'a mut Vec<u8>,
}

impl RowWriter<'_> {
    #[inline]
    pub(crate) fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.chunk.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.chunk.push(v as u8);
    }
    #[inline]
    pub(crate) fn i64(&mut self, v: i64) {
        self.u64(zigzag(v))
    }
    #[inline]
    pub(crate) fn opt(&mut self, delta: Option<i64>) {
        self.u64(delta.map_or(0, |d| zigzag(d).wrapping_add(1)))
    }
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}
#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

