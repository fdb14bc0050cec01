//! Tests of datagram_ids.rs (moved out of it to keep the production file short).

use super::*;

/// Datagrams of one full-segment sender, the capture showing no hole in its data.
fn feed(ids: &[(u16, u32)]) -> (Option<u64>, Vec<(u32, u32)>) {
    feed_with(ids, false)
}

/// [`feed`] where the skipped datagrams carried data: a data datagram after a skip
/// starts beyond a hole in the sequence, as the data of a lost datagram leaves one.
fn feed_lossy(ids: &[(u16, u32)]) -> (Option<u64>, Vec<(u32, u32)>) {
    feed_with(ids, true)
}

fn feed_with(ids: &[(u16, u32)], lossy: bool) -> (Option<u64>, Vec<(u32, u32)>) {
    let mut d = DatagramIds::default();
    let mut skipped = false;
    for (row, &(id, len)) in ids.iter().enumerate() {
        skipped |= d.expected.is_some_and(|e| id.wrapping_sub(e) > 0 && id.wrapping_sub(e) <= MAX_SKIP);
        let hole = lossy && len > 0 && std::mem::take(&mut skipped);
        d.on_datagram(id, 64, false, len, Some(1448), Some(row as u32), hole, false);
    }
    d.finish()
}

#[test]
fn skips_without_a_loss_in_the_capture_are_not_datagrams_lost() {
    // A host-wide counter: this connection's replies step by one, and during each
    // of its pauses the host's other traffic takes 57 numbers. The capture shows no
    // hole and no re-send after any of them: nothing was lost, and the numbering is
    // not shown to be the connection's own (10 skips, none explained): nothing told.
    let mut d = DatagramIds::default();
    let mut id = 1000u16;
    for burst in 0..10u32 {
        for k in 0..22u32 {
            d.on_datagram(id, 64, false, 1448, Some(1448), Some(burst * 22 + k), false, false);
            id = id.wrapping_add(1);
        }
        id = id.wrapping_add(57);
    }
    assert_eq!(d.finish(), (None, vec![]));
    // One jump on a pure ACK after 1,500 datagrams in step, no data after it: not
    // 26,000 datagrams lost; nor is the numbering shown to be the connection's own
    // by a loss it explains, so nothing is told (one unexplained skip, none explained).
    let mut ids: Vec<(u16, u32)> = (0..1500u16).map(|i| (i, 1448)).collect();
    ids.push((27_921, 0));
    assert_eq!(feed(&ids), (None, vec![]));
    // The same jump beside two losses the capture shows (holes): those two count,
    // the jump does not.
    let mut ids: Vec<(u16, u32)> = (0..1500u16).filter(|&i| i != 300 && i != 900).map(|i| (i, 1448)).collect();
    ids.push((27_921, 0));
    assert_eq!(feed_lossy(&ids), (Some(2), vec![(300, UNSEEN_BEFORE), (899, UNSEEN_BEFORE)]));
}

#[test]
fn a_skipped_number_is_a_datagram_the_capture_did_not_see() {
    // 20 full segments numbered 100.., the 11th (110) lost before the capture.
    let ids: Vec<(u16, u32)> = (100..120u16).filter(|&i| i != 110).map(|i| (i, 1448)).collect();
    let (unseen, marks) = feed_lossy(&ids);
    // One datagram unseen, marked on the row after the skip (111 is row 10).
    assert_eq!((unseen, marks), (Some(1), vec![(10, UNSEEN_BEFORE)]));
}

#[test]
fn a_skip_where_the_capture_shows_the_data_missing_is_in_step() {
    // Full segments numbered 100..148, every fifth one lost before the capture (the
    // numbering starts at 101, the first seen): 9 skips in 37 steps, 76 % exact. Each segment after a skip starts beyond a hole (LOST_SEGMENT):
    // a loss the capture shows, so the numbering is still one per segment.
    let kept: Vec<u16> = (100..148u16).filter(|i| i % 5 != 0).collect();
    let run = |holes: bool| {
        let mut d = DatagramIds::default();
        let mut prev = None;
        for (row, &id) in kept.iter().enumerate() {
            let hole = holes && prev.is_some_and(|p: u16| id != p + 1);
            d.on_datagram(id, 64, false, 1448, Some(1448), Some(row as u32), hole, false);
            prev = Some(id);
        }
        d.finish().0
    };
    assert_eq!(run(true), Some(9));
    // The same steps where the capture shows nothing missing (a host-wide counter
    // and another connection's datagrams in between): nothing told.
    assert_eq!(run(false), None);
}

#[test]
fn a_number_says_whether_a_datagram_is_a_re_send_or_an_overtaken_original() {
    let mut d = DatagramIds::default();
    // Too few steps yet: nothing said.
    assert_eq!(d.on_datagram(100, 64, false, 1448, Some(1448), Some(0), false, false), IdStep::Unknown);
    for i in 1..20u16 {
        d.on_datagram(100 + i, 64, false, 1448, Some(1448), Some(u32::from(i)), false, false);
    }
    // 120 lost, 121 beyond the hole; 120's data re-sent later as 122: a re-send.
    assert_eq!(d.on_datagram(121, 64, false, 1448, Some(1448), Some(20), true, false), IdStep::Fresh);
    assert_eq!(d.on_datagram(122, 64, false, 1448, Some(1448), Some(21), false, false), IdStep::Fresh);
    // 124 overtook 123 on the way; 123 then comes inside the skip: the original.
    assert_eq!(d.on_datagram(124, 64, false, 1448, Some(1448), Some(22), true, false), IdStep::Fresh);
    assert_eq!(d.on_datagram(123, 64, false, 1448, Some(1448), Some(23), false, false), IdStep::Overtaken);
    assert_eq!(d.finish().0, Some(1));
}

#[test]
fn runs_interleaved_by_a_forwarder_are_reordering_not_loss() {
    // 0..=40 in order, then two runs interleaved as a forwarder on two queues
    // delivers them: 111, 41, 112, 42, … — every datagram overtaken by 70.
    let mut ids: Vec<(u16, u32)> = (0..=40u16).map(|i| (i, 1448)).collect();
    for k in 0..70u16 {
        ids.push((111 + k, 1448));
        ids.push((41 + k, 1448));
    }
    ids.extend((181..200u16).map(|i| (i, 1448)));
    // Nothing unseen, no row marked, and the numbering still one per segment.
    assert_eq!(feed_lossy(&ids), (Some(0), vec![]));
    // One of them never comes (76): one unseen, marked on the row after its skip (111).
    let ids: Vec<(u16, u32)> = ids.into_iter().filter(|&(i, _)| i != 76).collect();
    assert_eq!(feed_lossy(&ids), (Some(1), vec![(41, UNSEEN_BEFORE)]));
}

#[test]
fn a_late_number_comes_off_the_skip_that_passed_over_it() {
    // 21 lost for good (skip marked on row 21); a pure ACK numbered 31 skips 30 (carried),
    // the next data numbered 33 skips 32 (marked on row 30, the carried skip dropped);
    // then 30 comes late. Both lost numbers keep their rows marked.
    let mut ids: Vec<(u16, u32)> = (0..=20u16).map(|i| (i, 1448)).collect();
    ids.push((22, 1448));
    ids.extend((23..=29u16).map(|i| (i, 1448)));
    ids.extend([(31, 0), (33, 1448), (30, 0)]);
    ids.extend((34..60u16).map(|i| (i, 1448)));
    assert_eq!(feed_lossy(&ids), (Some(2), vec![(21, UNSEEN_BEFORE), (30, UNSEEN_BEFORE)]));
    // Past the wrap: 2 overtakes 0 and 1, which come late — 0 among them, not a
    // datagram outside the numbering.
    let mut ids: Vec<(u16, u32)> = (65500..=65535u16).map(|i| (i, 1448)).collect();
    ids.extend([(2, 1448), (1, 1448), (0, 1448)]);
    ids.extend((3..30u16).map(|i| (i, 1448)));
    assert_eq!(feed_lossy(&ids), (Some(0), vec![]));
}

#[test]
fn hostile_numbers_never_panic() {
    // Random numbers, sizes, TTLs and flags, then near-sequential numbers jittered by
    // up to ±1050 (the window): bounded work, no overflow.
    let mut x: u64 = 0x1234_5678_9abc_def0;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..20 {
        let mut d = DatagramIds::default();
        for r in 0..5000u32 {
            let v = next();
            let segment = if (v >> 40) & 1 == 0 { None } else { Some(((v >> 41) % 3000) as u32) };
            d.on_datagram(v as u16, (v >> 50) as u8 & 0x7f, (v >> 60) & 7 == 0, ((v >> 16) % 200_000) as u32, segment, Some(r), (v >> 61) & 1 == 1, false);
        }
        d.finish();
        let mut d = DatagramIds::default();
        let mut base = next() as u16;
        for r in 0..20_000u32 {
            let v = next();
            let id = base.wrapping_add(((v % 2100) as i32 - 1050) as u16);
            base = base.wrapping_add(1 + ((v >> 20) % 3) as u16);
            d.on_datagram(id, 64, false, [0u32, 1448, 2896, 14480, 65000][((v >> 30) % 5) as usize], Some(1448), Some(r), (v >> 40) & 1 == 1, false);
        }
        d.finish();
    }
}

#[test]
fn resets_syns_and_a_ttl_above_64_are_outside_the_numbering() {
    let mut d = DatagramIds::default();
    for i in 0..30u16 {
        d.on_datagram(100 + i, 64, false, 1448, Some(1448), Some(u32::from(i)), false, false);
    }
    // A middlebox's reset with a number of its own: not 17,000 datagrams skipped.
    d.on_datagram(0x6000, 250, true, 0, Some(1448), Some(30), false, false);
    d.on_datagram(130, 64, false, 1448, Some(1448), Some(31), false, false);
    assert_eq!(d.finish(), (Some(0), vec![]));
    // Windows starts at TTL 128 and numbers from a counter other connections share.
    let mut d = DatagramIds::default();
    for i in 0..30u16 {
        d.on_datagram(100 + i, 120, false, 1448, Some(1448), Some(u32::from(i)), false, false);
    }
    assert_eq!(d.finish(), (None, vec![]));
}

#[test]
fn segments_smaller_than_the_mss_count_by_the_size_sent() {
    // MSS 1460 announced, 1348-byte segments sent (a path MTU of 1400), then a GRO
    // frame of 20 of them (26,960 B): it advances the number by 20, not 19.
    let mut d = DatagramIds::default();
    for i in 0..20u16 {
        d.on_datagram(i, 64, false, 1348, Some(1460), Some(u32::from(i)), false, false);
    }
    d.on_datagram(20, 64, false, 26_960, Some(1460), Some(20), false, false);
    d.on_datagram(40, 64, false, 1348, Some(1460), Some(21), false, false);
    assert_eq!(d.finish(), (Some(0), vec![]));
}

#[test]
fn a_gro_frame_advances_the_number_by_its_segments_and_wraps() {
    // 65530, a 3-segment GRO frame (4344 B) → next 65533, then pure ACKs over the wrap.
    let mut ids = vec![(65530u16, 4344u32)];
    ids.extend((0..20u16).map(|k| (65533u16.wrapping_add(k), 0)));
    assert_eq!(feed_lossy(&ids), (Some(0), vec![]));
}

#[test]
fn reordering_is_not_a_loss_and_other_numberings_say_nothing() {
    // 0..20 with 5 and 6 swapped on the way: no datagram unseen, no mark.
    let mut order: Vec<u16> = (0..20).collect();
    order.swap(5, 6);
    let ids: Vec<(u16, u32)> = order.iter().map(|&i| (i, 1448)).collect();
    assert_eq!(feed_lossy(&ids), (Some(0), vec![]));
    // A host-wide counter (other connections' datagrams in between) or random
    // numbers: most steps are not one per segment, so nothing is told.
    let ids: Vec<(u16, u32)> = (0..40u16).map(|i| (i * 3, 1448)).collect();
    assert_eq!(feed(&ids), (None, vec![]));
    // Zero everywhere (RFC 6864 allows it on atomic datagrams): nothing told.
    assert_eq!(feed(&[(0, 1448); 40]), (None, vec![]));
    // A reset from the stack numbered 0 amid the connection's own numbers is
    // outside them, not 65,000 datagrams skipped; the counter passing 0 is counted.
    let mut ids: Vec<(u16, u32)> = (65500..=65535u16).map(|i| (i, 0)).collect();
    ids.push((0, 0));
    ids.extend((1..20u16).map(|i| (i, 0)));
    ids.push((0, 0));
    assert_eq!(feed(&ids), (Some(0), vec![]));
    // The counter's 65535 lost, then its 0: one skipped, marked on the 0 (row 35).
    let ids: Vec<(u16, u32)> = (65500..=65534u16).chain(0..20).map(|i| (i, 1448)).collect();
    assert_eq!(feed_lossy(&ids), (Some(1), vec![(35, UNSEEN_BEFORE)]));
    // A skip on a pure ACK is marked on the next data segment, the one a stall can
    // end with: 20 segments, a pure ACK (row 20) after one lost, then data (row 21).
    let mut ids: Vec<(u16, u32)> = (0..20u16).map(|i| (i, 1448)).collect();
    ids.extend([(21, 0), (22, 1448), (23, 1448)]);
    assert_eq!(feed_lossy(&ids), (Some(1), vec![(21, UNSEEN_BEFORE)]));
}
