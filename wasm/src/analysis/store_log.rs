//! The byte log under the compact store (store.rs): LEB128 varints, zigzag for
//! signed values, appended a row at a time into chunks that double up to
//! [`CHUNK_MAX`] and stay that size after (at most one chunk of slack per log).

/// Largest chunk: big enough that per-chunk overhead is nil, small enough that the
/// unused tail of the last chunk stays negligible next to the data.
const CHUNK_MAX: usize = 64 * 1024;
/// First chunk of a log: most connections of a port scan hold a few rows.
const CHUNK_MIN: usize = 32;
/// Longest encoded row: ten varints of at most 10 bytes.
const ROW_MAX: usize = 100;

/// An append-only byte log in chunks (see module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ByteLog {
    chunks: Vec<Vec<u8>>,
}

impl ByteLog {
    #[inline]
    pub(crate) fn append(&mut self, row: &[u8]) {
        match self.chunks.last_mut() {
            Some(c) if c.capacity() - c.len() >= row.len() => c.extend_from_slice(row),
            _ => self.append_slow(row),
        }
    }

    /// The last chunk is full (or there is none): grow it or start the next one.
    #[cold]
    #[inline(never)]
    fn append_slow(&mut self, row: &[u8]) {
        match self.chunks.last_mut() {
            // Double the last chunk (one copy) while it is small.
            Some(c) if c.capacity() < CHUNK_MAX => c.reserve_exact(c.capacity().max(row.len())),
            _ => {
                let cap = if self.chunks.is_empty() { CHUNK_MIN } else { CHUNK_MAX };
                self.chunks.push(Vec::with_capacity(cap.max(row.len())));
            }
        }
        self.chunks.last_mut().expect("a chunk was just ensured").extend_from_slice(row);
    }

    /// Releases the slack of the last chunk (end of capture).
    pub(crate) fn shrink(&mut self) {
        if let Some(c) = self.chunks.last_mut() {
            c.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
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

/// A row being encoded on the stack, appended to a log in one piece.
pub(crate) struct Row {
    pub buf: [u8; ROW_MAX],
    pub len: usize,
}

impl Row {
    pub(crate) fn new() -> Row {
        Row { buf: [0; ROW_MAX], len: 0 }
    }
    #[inline]
    pub(crate) fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf[self.len] = (v as u8) | 0x80;
            self.len += 1;
            v >>= 7;
        }
        self.buf[self.len] = v as u8;
        self.len += 1;
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

