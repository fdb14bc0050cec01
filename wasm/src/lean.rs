//! Growth of the small per-connection logs from one element (issue 43 item 4).
//!
//! `Vec::push` and `VecDeque::push_back` allocate room for 4 elements at the first push
//! (std's minimum non-zero capacity for elements up to 1 KiB), 64 B for the 16-B points
//! of a clock's hull or a rate's bins. A capture of 100,000 short connections makes
//! ~14 such logs per connection, most of which never hold a second element (a
//! request's one segment, a response sent within one TS tick: one hull point), so
//! three quarters of that room stays empty until the end of the capture
//! (bench/README.md "Session 38"). Here a log grows one element at a time up to 4,
//! then as std would (doubling), so a log that does fill pays three reallocations
//! more, once. Only capacity changes: the elements, their order and every result read
//! from them are the same.

use std::collections::VecDeque;

/// Below this many elements a log grows by one (std's first allocation).
const STEP_UNTIL: usize = 4;

/// `v.push(x)`, growing a full `v` by one element while it holds fewer than 4.
#[inline]
pub(crate) fn push<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() && v.capacity() < STEP_UNTIL {
        v.reserve_exact(1);
    }
    v.push(x);
}

/// `q.push_back(x)`, growing a full `q` by one element while it holds fewer than 4.
#[inline]
pub(crate) fn push_back<T>(q: &mut VecDeque<T>, x: T) {
    if q.len() == q.capacity() && q.capacity() < STEP_UNTIL {
        q.reserve_exact(1);
    }
    q.push_back(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_grow_by_one_up_to_four_then_as_std() {
        let mut v: Vec<(i64, u64)> = Vec::new();
        // One 16-B element instead of std's four (64 B), then two, three, four.
        for k in 1..=4 {
            push(&mut v, (k, 0));
            assert_eq!(v.capacity(), k as usize);
        }
        push(&mut v, (5, 0));
        assert!(v.capacity() >= 8, "doubling from 4, as std: {}", v.capacity());
        assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        let mut q: VecDeque<(u32, i64)> = VecDeque::new();
        push_back(&mut q, (1, 2));
        assert_eq!(q.capacity(), 1);
        push_back(&mut q, (3, 4));
        assert_eq!(q.capacity(), 2);
        q.pop_front();
        push_back(&mut q, (5, 6));
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), [(3, 4), (5, 6)]);
    }
}
