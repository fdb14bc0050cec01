//! The table of identities seen that tells a packet the file holds twice (timeline.rs,
//! module doc, Repeats): [`SEEN_SLOTS`] slots of (identity, place in the file) in
//! buckets of [`SEEN_WAYS`], each forgetting its oldest.
//!
//! Speed (issues 41, 43): the table is 2 MiB and a packet's bucket is anywhere in it,
//! so writing each identity as its packet came cost a cache miss per packet (half of
//! the timeline's time on a bulk capture, bench/README.md session 40). The table is
//! read only when the file steps back in time, so identities wait in a small log in
//! file order and are written in batches: before any read, or when [`SEEN_BATCH`]
//! wait. Written in the same order, each takes the same slot it would have taken at
//! once, so every read sees the very table the packet-by-packet writes made; in a
//! batch the buckets are touched first, so their misses overlap.
//!
//! A bucket's empty or oldest slot is found without reading the bucket: places in
//! the file only grow (timeline.rs numbers packets as they come) and identities are
//! never 0, so a bucket fills its slots in order and then overwrites them in the same
//! order, oldest first; a counter per bucket (16 KiB) names the slot. Scanning the 8
//! slots for the oldest was ~3 % of the instructions of a bulk capture (cachegrind).

/// Slots of the table: 131,072 × 16 B.
pub const SEEN_SLOTS: usize = 1 << 17;
/// Slots per bucket.
pub const SEEN_WAYS: usize = 8;
/// Identities written to the table at a time: 64 KiB of log, which stays in cache.
pub const SEEN_BATCH: usize = 4096;
/// Buckets touched ahead of their writes.
const TOUCH_AHEAD: usize = 16;

#[derive(Default)]
pub struct RepeatTable {
    /// Identities and places in the file, direct-mapped (allocated at the first write).
    slots: Vec<(u64, u64)>,
    /// Per bucket, the slot its next identity takes (module doc; with `slots`).
    next: Vec<u8>,
    /// Identities and places not yet written to `slots`, in file order.
    unwritten: Vec<(u64, u64)>,
}

impl RepeatTable {
    /// Remember that the packet at `arrival` (its place in the file) has identity `id`:
    /// non-zero, at a place after every place remembered before (module doc).
    #[inline]
    pub fn remember(&mut self, id: u64, arrival: u64) {
        self.unwritten.push((id, arrival));
        if self.unwritten.len() >= SEEN_BATCH {
            self.write();
        }
    }

    /// A packet of identity `id` came before place `newest_arrival` in the file, or
    /// at it when `at_newest_too` (timeline.rs, Repeats).
    pub fn seen_before(&mut self, id: u64, newest_arrival: u64, at_newest_too: bool) -> bool {
        if !self.unwritten.is_empty() {
            self.write();
        }
        let bucket = bucket_of(id);
        self.slots
            .get(bucket..bucket + SEEN_WAYS)
            .unwrap_or(&[])
            .iter()
            .any(|&(seen, arrival)| seen == id && (arrival < newest_arrival || arrival == newest_arrival && at_newest_too))
    }

    /// Write the waiting identities in file order: each takes its bucket's empty or
    /// oldest slot, as if written when its packet came (module doc, Speed).
    fn write(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); SEEN_SLOTS];
            self.next = vec![0; SEEN_SLOTS / SEEN_WAYS];
        }
        let mut log = std::mem::take(&mut self.unwritten);
        for batch in log.chunks(TOUCH_AHEAD) {
            // Independent reads of every slot of the batch first: their misses overlap.
            let touched = batch.iter().fold(0, |acc, &(id, _)| {
                let bucket = bucket_of(id);
                acc ^ self.slots.get(bucket + self.way(bucket)).map_or(0, |s| s.1)
            });
            std::hint::black_box(touched);
            for &(id, arrival) in batch {
                let bucket = bucket_of(id);
                let way = self.way(bucket);
                if let Some(slot) = self.slots.get_mut(bucket + way) {
                    *slot = (id, arrival);
                }
                if let Some(n) = self.next.get_mut(bucket / SEEN_WAYS) {
                    *n = ((way + 1) % SEEN_WAYS) as u8;
                }
            }
        }
        log.clear();
        self.unwritten = log;
    }

    /// The slot of `bucket` its next identity takes: the first empty one while there
    /// is one, then the oldest (module doc).
    fn way(&self, bucket: usize) -> usize {
        self.next.get(bucket / SEEN_WAYS).map_or(0, |&n| n as usize % SEEN_WAYS)
    }
}

/// First slot of `id`'s bucket.
fn bucket_of(id: u64) -> usize {
    (id >> 20) as usize % (SEEN_SLOTS / SEEN_WAYS) * SEEN_WAYS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table written packet by packet (up to session 40): the batched one must
    /// answer every read as it does.
    struct Eager(Vec<(u64, u64)>);

    impl Eager {
        fn remember(&mut self, id: u64, arrival: u64) {
            let bucket = bucket_of(id);
            let oldest = (bucket..bucket + SEEN_WAYS).min_by_key(|&i| (self.0[i].0 != 0, self.0[i].1)).unwrap_or(bucket);
            self.0[oldest] = (id, arrival);
        }
        fn seen_before(&self, id: u64, newest: u64, at_newest_too: bool) -> bool {
            let bucket = bucket_of(id);
            self.0[bucket..bucket + SEEN_WAYS].iter().any(|&(s, a)| s == id && (a < newest || a == newest && at_newest_too))
        }
    }

    #[test]
    fn batched_writes_answer_as_writes_packet_by_packet() {
        // 40,000 identities over only 64 buckets (the high bits vary: ids collide and
        // buckets forget their oldest), reads every 997th packet and a long stretch
        // with none (batches of SEEN_BATCH written unread): the same answers.
        let (mut eager, mut batched) = (Eager(vec![(0, 0); SEEN_SLOTS]), RepeatTable::default());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let (mut reads, mut hits) = (0, 0);
        for arrival in 0..40_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = ((x % 64) << 20 | (x >> 40) % 300) | 1;
            if arrival % 997 == 0 && !(10_000..30_000).contains(&arrival) {
                let newest = arrival.saturating_sub(x % 500);
                let answer = eager.seen_before(id, newest, x & 1 == 0);
                assert_eq!(batched.seen_before(id, newest, x & 1 == 0), answer, "read at {arrival}");
                reads += 1;
                hits += u32::from(answer);
            }
            eager.remember(id, arrival);
            batched.remember(id, arrival);
        }
        for id in (1..64 << 20).step_by(1 << 16) {
            assert_eq!(batched.seen_before(id | 1, 40_000, true), eager.seen_before(id | 1, 40_000, true));
        }
        // Written in the same order, each identity took the very same slot.
        assert!(batched.slots == eager.0);
        assert!(reads > 15 && hits > 0, "{reads} reads, {hits} hits: both answers were tried");
    }
}
