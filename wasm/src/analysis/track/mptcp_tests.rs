//! Tests of mptcp.rs (moved out of it to keep the production file short).

use super::*;
use super::data_level::coverage;

#[test]
fn tokens_and_idsns_follow_the_rfcs_hashes() {
    // SHA-256 of the 8 key bytes 0x0102030405060708 (checked with Python's hashlib:
    // 66840dda154e8a113c31dd0ad32f7f3a366a80e8136979d8f5a101d3d29d6f72): the first 4
    // bytes are the token, the last 8 the IDSN (RFC 8684 §3.1).
    assert_eq!(token_and_idsn(0x0102030405060708, 1), (0x66840dda, 0xf5a101d3d29d6f72));
    // SHA-1 in v0 (RFC 6824 §3.1): hashlib.sha1 gives
    // dd5783bcf1e9002bc00ad5b83a95ed6e4ebb4ad5.
    assert_eq!(token_and_idsn(0x0102030405060708, 0), (0xdd5783bc, 0x3a95ed6e4ebb4ad5));
}

#[test]
fn extend32_picks_the_nearest() {
    assert_eq!(extend32(5, 0x1_0000_0000), 0x1_0000_0005);
    assert_eq!(extend32(0xffff_fff0, 0x1_0000_0005), 0xffff_fff0);
    assert_eq!(extend32(3, 0x1_ffff_fff0), 0x2_0000_0003);
}

#[test]
fn coverage_counts_distinct_subflows() {
    // Subflow 0 carries [0, 100) twice (its own retransmission: once), subflow 1
    // [50, 150): 50 bytes on one, 50 on two, 50 on one.
    let lists = vec![vec![(0, 100), (0, 100)], vec![(50, 150)]];
    assert_eq!(coverage(&lists), vec![100, 50]);
    assert_eq!(coverage(&[vec![(0, 10)], vec![(0, 10)], vec![(0, 10)]]), vec![0, 0, 10]);
    assert_eq!(coverage(&[]), Vec::<u64>::new());
}

#[test]
fn payload_maps_through_the_covering_mapping() {
    let recent = [Mapping { dsn: 1000, dsn_32: false, ssn: 1, len: Some(100) }, Mapping { dsn: 5000, dsn_32: false, ssn: 101, len: Some(100) }];
    // Bytes 51..151 of the subflow: 50 from the first mapping, 50 from the second.
    let out = map_payload(&recent, 51, 100);
    assert_eq!(out, [Some((5000, 5050)), Some((1050, 1100))]);
    // Past every mapping: nothing.
    assert_eq!(map_payload(&recent, 300, 10), [None, None]);
}
