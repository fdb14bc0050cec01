//! MPTCP (RFC 8684): subflows grouped into connections, data-level bytes from the DSS
//! mappings, redundant sends, failed joins (analysis/track/mptcp.rs). On two Linux recordings
//! (public/examples/README.md "MPTCP") and a synthesized redundant-scheduler capture,
//! since this kernel offers only the `default` scheduler (net.mptcp.available_schedulers).

use tcpscope_core::analysis::mptcp::{token_and_idsn, MptcpConnection, SubflowStatus};
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH, RST, SYN};
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::synth::{write_pcap, Endian, Link, Segment, TsResolution};

fn analyze(bytes: &[u8]) -> Session {
    analyze_bytes(bytes, AnalysisOptions::default(), 1 << 16)
}

fn example(name: &str) -> Session {
    let path = format!("{}/../public/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    analyze(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
}

fn statuses(c: &MptcpConnection) -> Vec<(u32, SubflowStatus)> {
    c.subflows.iter().map(|s| (s.connection, s.status)).collect()
}

/// A Linux 6.18 client wrote 4,000,000 bytes through one MPTCP socket (client.py:
/// "client wrote 4000000", server.py: "server read 4000000"); its subflows: the initial
/// one on path 1, a join from its `subflow` endpoint 10.82.0.1, and one to the address
/// the server announced (ADD_ADDR 10.82.0.2), both on the lossy path 2.
/// tshark 4.0.17 groups them the same way:
/// `tshark -r mptcp-two-paths.pcap -o mptcp.analyze_mappings:TRUE -T fields -e tcp.stream
/// -e mptcp.stream | sort | uniq -c` → tcp.stream 0, 1, 2 all in mptcp.stream 0 (and the
/// v1 SYN, which carries no key, in none).
#[test]
fn a_linux_upload_over_two_paths_is_one_connection_of_three_subflows() {
    let s = example("mptcp-two-paths.pcap");
    let a = s.analysis().unwrap();
    assert_eq!(a.mptcp.len(), 1);
    let c = &a.mptcp[0];
    assert_eq!(statuses(c), vec![(0, SubflowStatus::Initial), (1, SubflowStatus::Joined), (2, SubflowStatus::Joined)]);
    assert_eq!(c.version, Some(1));
    assert!(a.connections.iter().all(|k| k.mptcp == Some(0)));
    let up = &c.directions[0];
    // Every byte the application wrote, once, and all of it acknowledged at the data
    // level (DATA_ACK = IDSN + 1 + 4,000,000, then + 1 for the DATA_FIN).
    assert_eq!((up.data_bytes, up.data_acked, up.data_fin), (4_000_000, Some(4_000_000), true));
    // Each subflow's share; they add up to the total: nothing was sent twice.
    let shares: Vec<u64> = c.subflows.iter().map(|s| s.data_bytes[0]).collect();
    assert_eq!(shares, vec![2_598_064, 668_760, 733_176]);
    assert_eq!((up.redundant_bytes, up.sent_on_subflows.clone()), (0, vec![4_000_000]));
    // The subflows' own payload includes their TCP retransmissions (11 frames the
    // emulator dropped on path 2): 14,464 bytes above the data level.
    let payload: u64 = a.connections.iter().map(|k| k.directions[0].payload_bytes).sum();
    assert_eq!((up.payload_bytes, payload), (4_014_464, 4_014_464));
    assert_eq!(c.add_addr, 1);
    assert!(c.text.starts_with("MPTCP connection of 3 subflows (connections 0, 1, 2): 3.8 MiB of data from 10.81.0.1:"), "{}", c.text);
}

/// The server allowed one join (`ip mptcp limits set subflows 1`): the second was
/// answered (SYN/ACK with MP_JOIN), then reset with MP_TCPRST reason 3 before the
/// server acknowledged the third ACK (tshark: "TCPRST Reason: Administratively
/// prohibited (0x03)", frame 13). tshark still puts tcp.stream 2 in mptcp.stream 0.
#[test]
fn a_join_beyond_the_servers_limit_is_named_as_refused() {
    let s = example("mptcp-join-refused.pcap");
    let a = s.analysis().unwrap();
    assert_eq!(a.mptcp.len(), 1);
    let c = &a.mptcp[0];
    assert_eq!(statuses(c), vec![(0, SubflowStatus::Initial), (1, SubflowStatus::Joined), (2, SubflowStatus::JoinRefused)]);
    assert_eq!(c.subflows[2].reset_reason, Some(3));
    assert_eq!(c.directions[0].data_bytes, 1_000_000);
    assert!(c.text.contains("Subflow 2 did not join: it was reset before the join completed (MP_TCPRST reason 3: administratively prohibited)."), "{}", c.text);
}

// --- A synthesized capture: the redundant scheduler, a join nobody answered, a join
// to a connection the capture does not hold.

const CLIENT_KEY: u64 = 0x1111_2222_3333_4444;
const SERVER_KEY: u64 = 0x5555_6666_7777_8888;

fn mp(bytes: &[u8]) -> Vec<u8> {
    let mut v = vec![30, bytes.len() as u8 + 2];
    v.extend_from_slice(bytes);
    v
}
fn capable(keys: &[u64]) -> Vec<u8> {
    let mut b = vec![0x01, 0x01]; // v1, HMAC-SHA256
    for k in keys {
        b.extend(k.to_be_bytes());
    }
    mp(&b)
}
fn join_syn(token: u32) -> Vec<u8> {
    let mut b = vec![0x10, 1];
    b.extend(token.to_be_bytes());
    b.extend(7u32.to_be_bytes());
    mp(&b)
}
/// DSS with an 8-octet data ACK and, when `map` is given, an 8-octet mapping.
fn dss(data_ack: u64, map: Option<(u64, u32, u16)>, fin: bool) -> Vec<u8> {
    let flags = 0x03 | if map.is_some() { 0x0c } else { 0 } | if fin { 0x10 } else { 0 };
    let mut b = vec![0x20, flags];
    b.extend(data_ack.to_be_bytes());
    if let Some((dsn, ssn, len)) = map {
        b.extend(dsn.to_be_bytes());
        b.extend(ssn.to_be_bytes());
        b.extend(len.to_be_bytes());
    }
    mp(&b)
}

struct Script {
    segs: Vec<Segment>,
}

impl Script {
    fn add(&mut self, t_us: i64, src: &str, dst: &str, seq: u32, ack: u32, flags: u8, len: u32, opts: Vec<u8>) {
        let mut s = Segment::new(src, dst);
        s.at_ns(1_609_459_200_000_000_000 + t_us * 1000).seq(seq).ack(ack).flags(flags).payload(len).extra_options(&opts);
        self.segs.push(s);
    }
    /// A joined subflow from `client` to the server's port 80, carrying `chunks` of
    /// 1448 bytes mapped from data sequence number `dsn`, each acknowledged.
    #[allow(clippy::too_many_arguments)]
    fn subflow(&mut self, t0: i64, client: &str, server: &str, opening: [Vec<u8>; 3], dsn: u64, chunks: u32, idsn_server: u64, fin: bool) {
        let (c, s) = (100_000u32, 500_000u32);
        let [syn, syn_ack, third] = opening;
        self.add(t0, client, server, c, 0, SYN, 0, syn);
        self.add(t0 + 10_000, server, client, s, c + 1, SYN | ACK, 0, syn_ack);
        self.add(t0 + 10_000, client, server, c + 1, s + 1, ACK, 0, third);
        // The responder's ACK of the third ACK: the join is complete (RFC 8684 §3.2).
        self.add(t0 + 20_000, server, client, s + 1, c + 1, ACK, 0, dss(dsn, None, false));
        for i in 0..chunks {
            let t = t0 + 30_000 + i64::from(i) * 1_000;
            let (seq, d) = (c + 1 + i * 1448, dsn + u64::from(i) * 1448);
            self.add(t, client, server, seq, s + 1, ACK | PSH, 1448, dss(idsn_server + 1, Some((d, 1 + i * 1448, 1448)), false));
            self.add(t + 10_000, server, client, s + 1, seq + 1448, ACK, 0, dss(d + 1448, None, false));
        }
        let end = c + 1 + chunks * 1448;
        let t = t0 + 30_000 + i64::from(chunks) * 1_000 + 20_000;
        // DATA_FIN alone: mapped at subflow sequence 0, data-level length 1 (§3.3.3).
        let last = dsn + u64::from(chunks) * 1448;
        let fin_opt = if fin { dss(idsn_server + 1, Some((last, 0, 1)), true) } else { dss(idsn_server + 1, None, false) };
        self.add(t, client, server, end, s + 1, ACK | FIN, 0, fin_opt);
        self.add(t + 10_000, server, client, s + 1, end + 1, ACK | FIN, 0, dss(last + u64::from(fin), None, false));
        self.add(t + 10_000, client, server, end + 1, s + 2, ACK, 0, vec![]);
    }
}

fn redundant_capture() -> Vec<u8> {
    let (server_token, server_idsn) = token_and_idsn(SERVER_KEY, 1);
    let (_, client_idsn) = token_and_idsn(CLIENT_KEY, 1);
    let server = "10.0.0.2:80";
    let mut s = Script { segs: Vec::new() };
    let first = client_idsn.wrapping_add(1);
    let join = |key_mp: Vec<u8>| [key_mp, mp(&[&[0x10, 1][..], &[0; 12]].concat()), mp(&[&[0x10, 0][..], &[0; 20]].concat())];
    // Subflow 0: MP_CAPABLE (SYN without a key, SYN/ACK with the server's, third ACK with both).
    s.subflow(0, "10.0.0.1:40000", server, [capable(&[]), capable(&[SERVER_KEY]), capable(&[CLIENT_KEY, SERVER_KEY])], first, 50, server_idsn, true);
    // Subflows 1 and 2 join by the server's token and carry the very same data.
    s.subflow(5_000, "10.0.1.1:40001", server, join(join_syn(server_token)), first, 50, server_idsn, false);
    s.subflow(6_000, "10.0.2.1:40002", server, join(join_syn(server_token)), first, 50, server_idsn, false);
    // Subflow 3: a join SYN that gets no answer, resent once.
    s.add(7_000, "10.0.3.1:40003", server, 9, 0, SYN, 0, join_syn(server_token));
    s.add(1_007_000, "10.0.3.1:40003", server, 9, 0, SYN, 0, join_syn(server_token));
    // Subflow 4: a join to a token no connection in the capture has; reset.
    s.add(8_000, "10.0.4.1:40004", server, 9, 0, SYN, 0, join_syn(0xdead_beef));
    s.add(18_000, server, "10.0.4.1:40004", 0, 10, RST | ACK, 0, vec![]);
    let mut segs = s.segs;
    segs.sort_by_key(|x| x.ts_ns);
    let frames: Vec<_> = segs.iter().map(Segment::frame).collect();
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

#[test]
fn the_same_data_on_three_subflows_is_counted_once_and_said() {
    let bytes = redundant_capture();
    if let Ok(dir) = std::env::var("TCPSCOPE_WRITE_SYNTH") {
        std::fs::write(format!("{dir}/mptcp-redundant.pcap"), &bytes).unwrap();
    }
    let s = analyze(&bytes);
    let a = s.analysis().unwrap();
    assert_eq!(a.connections.len(), 5);
    assert_eq!(a.mptcp.len(), 2, "{:#?}", a.mptcp);
    let c = &a.mptcp[0];
    assert_eq!(
        statuses(c),
        vec![(0, SubflowStatus::Initial), (1, SubflowStatus::Joined), (2, SubflowStatus::Joined), (3, SubflowStatus::JoinUnanswered)]
    );
    assert_eq!(c.keys, [Some("1111222233334444".to_string()), Some("5555666677778888".to_string())]);
    let up = &c.directions[0];
    // 50 × 1448 = 72,400 data-level bytes, each on all three subflows: 144,800 sent
    // again, the subflows' payload three times the data.
    assert_eq!((up.data_bytes, up.payload_bytes, up.redundant_bytes), (72_400, 217_200, 144_800));
    assert_eq!(up.sent_on_subflows, vec![0, 0, 72_400]);
    // The server acknowledged it all (the DATA_FIN's number is not data).
    assert_eq!((up.data_acked, up.data_fin), (Some(72_400), true));
    assert!(c.text.contains("The same 71 KiB was sent on 3 subflows: goodput is a third of what the subflows carried."), "{}", c.text);
    assert!(c.text.contains("Subflow 3 did not join: its MP_JOIN SYN got no answer in the capture."), "{}", c.text);
    // The join to an unknown token: its own entry, as tshark gives it its own mptcp.stream.
    let loose = &a.mptcp[1];
    assert_eq!(statuses(loose), vec![(4, SubflowStatus::JoinRefused)]);
    assert_eq!(loose.keys, [None, None]);
    // Every connection knows its group; the report carries the grouping.
    let groups: Vec<Option<u32>> = a.connections.iter().map(|k| k.mptcp).collect();
    assert_eq!(groups, vec![Some(0), Some(0), Some(0), Some(0), Some(1)]);
    let json: serde_json::Value = serde_json::from_str(&s.report().to_json()).unwrap();
    assert_eq!(json["mptcp"][0]["directions"][0]["redundantBytes"], 144_800);
    assert_eq!(json["connections"][2]["mptcp"], 0);
}

/// A capture without MPTCP has no `mptcp` key and no `connection.mptcp` (the report
/// is unchanged for plain TCP).
#[test]
fn plain_tcp_reports_no_mptcp() {
    let s = example("rwnd-limited.pcap");
    assert!(s.analysis().unwrap().mptcp.is_empty());
    let json: serde_json::Value = serde_json::from_str(&s.report().to_json()).unwrap();
    assert!(json.get("mptcp").is_none());
    assert!(json["connections"][0].get("mptcp").is_none());
}

/// The connection table shows an MPTCP connection as one row of its own (its first
/// subflow's id, the subflow count, the MPTCP connection's numbers) and lists every
/// subflow under it, with its own numbers, when expanded; a search lists the matching
/// subflows flat (table.rs).
#[test]
fn the_table_has_one_expandable_row_per_mptcp_connection() {
    use tcpscope_core::table::{ConnectionTable, SortKey, TableQuery};
    let s = example("mptcp-two-paths.pcap");
    let a = s.analysis().unwrap();
    let mut table = ConnectionTable::with_mptcp(&a.connections, &a.mptcp);
    let ids = |p: &tcpscope_core::table::TablePage| p.rows.iter().map(|r| (r.id, r.mptcp, r.subflows)).collect::<Vec<_>>();
    let collapsed = table.query(&TableQuery { count: 10, ..Default::default() });
    assert_eq!((collapsed.total, collapsed.matched, ids(&collapsed)), (3, 1, vec![(0, Some(0), 3)]));
    // The MPTCP row: the 4,000,000 bytes the client wrote (data level, each byte once),
    // not subflow 0's 2,598,064; its rate `dataMeanBps` = 4,000,000 × 8 over the MPTCP
    // connection's span; the subflows' retransmissions summed (14,464 bytes resent on the
    // lossy path: `payloadBytes` 4,014,464 − 4,000,000).
    let m = &a.mptcp[0];
    let row = &collapsed.rows[0];
    assert_eq!((row.bytes, row.duration, row.start), (4_000_000, m.end - m.start, m.start));
    assert_eq!(row.data_mean_bps, Some(m.directions[0].data_mean_bps));
    assert!((row.data_mean_bps.unwrap() - 4_000_000.0 * 8.0 / (m.end - m.start)).abs() < 1e-6);
    let own = |id: usize| &a.connections[id].directions[a.connections[id].data_direction as usize];
    assert_eq!(row.retransmissions, (0..3).map(|i| own(i).retransmissions).sum::<u64>());
    assert!(row.retransmissions > 0);
    let expanded = table.query(&TableQuery { count: 10, expanded: vec![0], ..Default::default() });
    assert_eq!(ids(&expanded), vec![(0, Some(0), 3), (0, Some(0), 0), (1, Some(0), 0), (2, Some(0), 0)]);
    // Each subflow's own row: its own payload (docs/ANALYSIS.md `subflows[].dataBytes`:
    // 2,598,064 + 668,760 + 733,176 distinct; payload with resends 2,598,064, 676,104, 740,296).
    assert_eq!(expanded.rows[1..].iter().map(|r| (r.bytes, r.data_mean_bps)).collect::<Vec<_>>(), vec![(2_598_064, None), (676_104, None), (740_296, None)]);
    // Sorted by bytes, the MPTCP row sorts by its 4,000,000 (grouped) but subflows by their own (searched).
    let by_bytes = table.query(&TableQuery { count: 10, sort: SortKey::Bytes, descending: true, text: "10.8".into(), ..Default::default() });
    assert_eq!(by_bytes.rows.iter().map(|r| r.bytes).collect::<Vec<_>>(), vec![2_598_064, 740_296, 676_104]);
    // Without the report's list (ConnectionTable::new) the row keeps the first subflow's numbers.
    let bare = ConnectionTable::new(&a.connections).query(&TableQuery { count: 10, ..Default::default() });
    assert_eq!((bare.rows[0].bytes, bare.rows[0].data_mean_bps), (2_598_064, None));
    let searched = table.query(&TableQuery { count: 10, text: "10.82.0.2".into(), ..Default::default() });
    assert_eq!(ids(&searched), vec![(1, Some(0), 0)]);
}

/// The MPTCP connection-level rate (view series `mptcpData`, analysis/track/mptcp/data_level.rs `data_arrivals`):
/// data sequence bytes as they first appear on any subflow, each byte once.
fn mptcp_bins(a: &tcpscope_core::analysis::Analysis, connection: u32) -> serde_json::Value {
    let c = &a.connections[connection as usize];
    let req = serde_json::json!({ "generation": 1, "connection": connection, "series": "mptcpData", "t0": 0.0, "t1": c.end + 1.0, "columns": 400, "binSeconds": 0.05 });
    serde_json::from_str(&tcpscope_core::view::ViewEngine::new().query_json(Some(a), &req.to_string())).unwrap()
}

fn sum_bytes(answer: &serde_json::Value) -> u64 {
    answer["bytes"].as_array().unwrap_or_else(|| panic!("bins: {answer}")).iter().map(|b| b.as_u64().unwrap()).sum()
}

#[test]
fn the_connection_level_rate_counts_each_data_byte_once() {
    // mptcp-two-paths.pcap: 4,000,000 bytes written, carried over three subflows whose
    // payload (4,014,464) includes 14,464 bytes of TCP retransmissions on the lossy path:
    // the series adds up to the 4,000,000, the same from whichever subflow it is asked.
    let s = example("mptcp-two-paths.pcap");
    let a = s.analysis().unwrap();
    for connection in 0..3 {
        let answer = mptcp_bins(a, connection);
        assert_eq!(answer["series"], "mptcpData");
        assert_eq!(sum_bytes(&answer), 4_000_000, "subflow {connection}: {}", answer["notes"]);
    }
    // The subflows' own throughput series add up to their payload, retransmissions included.
    let throughput: u64 = (0..3u32)
        .map(|c| {
            let req = serde_json::json!({ "generation": 1, "connection": c, "series": "throughput", "t0": 0.0, "t1": 3.0, "columns": 400, "binSeconds": 0.05 });
            sum_bytes(&serde_json::from_str(&tcpscope_core::view::ViewEngine::new().query_json(Some(a), &req.to_string())).unwrap())
        })
        .sum();
    assert_eq!(throughput, 4_014_464);
    // The synthesized redundant capture: 72,400 data bytes each sent on 3 subflows
    // (217,200 bytes of payload): the connection-level series counts 72,400.
    let s = analyze(&redundant_capture());
    assert_eq!(sum_bytes(&mptcp_bins(s.analysis().unwrap(), 2)), 72_400);
    // Plain TCP: no data, a note.
    let s = example("rwnd-limited.pcap");
    let plain = mptcp_bins(s.analysis().unwrap(), 1);
    assert_eq!(plain["kind"], "none", "{plain}");
    assert!(plain["notes"].to_string().contains("not a subflow of an MPTCP connection"), "{plain}");
}

// --- Data on the MP_CAPABLE packet (RFC 8684 §3.1), options on a joined subflow.

/// v1 MP_CAPABLE on the first data packet: both keys and the Data-Level Length.
fn capable_with_data(len: u16) -> Vec<u8> {
    let mut b = vec![0x01, 0x01];
    b.extend(CLIENT_KEY.to_be_bytes());
    b.extend(SERVER_KEY.to_be_bytes());
    b.extend(len.to_be_bytes());
    mp(&b)
}

/// The client's first data packet carries MP_CAPABLE with Data-Level Length 3000 and
/// 1500 bytes; the next 1500 bytes ride on a segment without any option (the mapping
/// covers it), then a DSS maps 1000 more at IDSN + 1 + 3000. A joined subflow (no data)
/// carries a REMOVE_ADDR and then the MP_FASTCLOSE. Returns the capture.
fn capable_data_capture() -> Vec<u8> {
    let (server_token, server_idsn) = token_and_idsn(SERVER_KEY, 1);
    let (_, client_idsn) = token_and_idsn(CLIENT_KEY, 1);
    let (client, server) = ("10.0.0.1:40000", "10.0.0.2:80");
    let (c, sv) = (100_000u32, 500_000u32);
    let first = client_idsn.wrapping_add(1);
    let mut s = Script { segs: Vec::new() };
    s.add(0, client, server, c, 0, SYN, 0, capable(&[]));
    s.add(10_000, server, client, sv, c + 1, SYN | ACK, 0, capable(&[SERVER_KEY]));
    s.add(10_000, client, server, c + 1, sv + 1, ACK | PSH, 1500, capable_with_data(3000));
    s.add(10_100, client, server, c + 1501, sv + 1, ACK | PSH, 1500, vec![]);
    s.add(10_200, client, server, c + 3001, sv + 1, ACK | PSH, 1000, dss(server_idsn + 1, Some((first + 3000, 3001, 1000)), false));
    s.add(20_000, server, client, sv + 1, c + 4001, ACK, 0, dss(first + 4000, None, false));
    let join = [join_syn(server_token), mp(&[&[0x10, 1][..], &[0; 12]].concat()), mp(&[&[0x10, 0][..], &[0; 20]].concat())];
    s.subflow(30_000, "10.0.1.1:40001", server, join, first + 4000, 0, server_idsn, false);
    // On the joined subflow, after its opening: REMOVE_ADDR of address id 3, then
    // MP_FASTCLOSE with the server's key (§3.4.2, §3.5).
    s.add(200_000, "10.0.1.1:40001", server, 100_001, 500_001, ACK, 0, mp(&[0x40, 3]));
    s.add(210_000, "10.0.1.1:40001", server, 100_001, 500_001, ACK, 0, mp(&[&[0x70, 0][..], &SERVER_KEY.to_be_bytes()[..]].concat()));
    let mut segs = s.segs;
    segs.sort_by_key(|x| x.ts_ns);
    let frames: Vec<_> = segs.iter().map(Segment::frame).collect();
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

#[test]
fn data_on_the_mp_capable_packet_is_mapped_from_idsn_plus_one() {
    let s = analyze(&capable_data_capture());
    let a = s.analysis().unwrap();
    let c = &a.mptcp[0];
    let up = &c.directions[0];
    // 3000 bytes through the MP_CAPABLE mapping (IDSN + 1, subflow sequence 1, two
    // segments) and 1000 through the DSS: 4000, all acknowledged (DATA_ACK = IDSN +
    // 1 + 4000). Without the MP_CAPABLE mapping only the 1000 would count.
    assert_eq!((up.data_bytes, up.data_acked), (4000, Some(4000)));
    assert_eq!(c.subflows[0].data_bytes, [4000, 0]);
}

#[test]
fn options_on_a_joined_subflow_count_for_its_connection() {
    let s = analyze(&capable_data_capture());
    let a = s.analysis().unwrap();
    assert_eq!(a.mptcp.len(), 1);
    let c = &a.mptcp[0];
    assert_eq!(statuses(c), vec![(0, SubflowStatus::Initial), (1, SubflowStatus::Joined)]);
    // The REMOVE_ADDR and the MP_FASTCLOSE rode on the joined subflow (connection 1),
    // whose connection is known only once its token is resolved; they still count.
    assert_eq!((c.remove_addr, c.fast_close), (1, true));
    assert!(c.text.ends_with("An MP_FASTCLOSE closed the whole connection at once."), "{}", c.text);
}

/// Three joins that do not complete, told apart by who reset and what came before.
fn join_endings_capture() -> Vec<u8> {
    let (server_token, server_idsn) = token_and_idsn(SERVER_KEY, 1);
    let (_, client_idsn) = token_and_idsn(CLIENT_KEY, 1);
    let server = "10.0.0.2:80";
    let mut s = Script { segs: Vec::new() };
    s.subflow(0, "10.0.0.1:40000", server, [capable(&[]), capable(&[SERVER_KEY]), capable(&[CLIENT_KEY, SERVER_KEY])], client_idsn.wrapping_add(1), 1, server_idsn, false);
    let (syn, syn_ack, third) = (join_syn(server_token), mp(&[&[0x10, 1][..], &[0; 12]].concat()), mp(&[&[0x10, 0][..], &[0; 20]].concat()));
    // Connection 1: SYN, SYN/ACK, third ACK; the responder re-sends its SYN/ACK (the
    // third ACK never reached it), then resets: the handshake never completed.
    let b = "10.0.1.1:40001";
    s.add(100_000, b, server, 9, 0, SYN, 0, syn.clone());
    s.add(110_000, server, b, 70, 10, SYN | ACK, 0, syn_ack.clone());
    s.add(110_000, b, server, 10, 71, ACK, 0, third.clone());
    s.add(1_110_000, server, b, 70, 10, SYN | ACK, 0, syn_ack.clone());
    s.add(2_000_000, server, b, 71, 10, RST | ACK, 0, vec![]);
    // Connection 2: SYN, SYN/ACK, and the initiator resets: it gave up.
    let c = "10.0.2.1:40002";
    s.add(200_000, c, server, 9, 0, SYN, 0, syn.clone());
    s.add(210_000, server, c, 70, 10, SYN | ACK, 0, syn_ack.clone());
    s.add(220_000, c, server, 10, 0, RST, 0, vec![]);
    // Connection 3: SYN, SYN/ACK, third ACK, and the responder resets at once
    // (MP_TCPRST reason 3): refused.
    let e = "10.0.3.1:40003";
    s.add(300_000, e, server, 9, 0, SYN, 0, syn);
    s.add(310_000, server, e, 70, 10, SYN | ACK, 0, syn_ack);
    s.add(310_000, e, server, 10, 71, ACK, 0, third);
    s.add(320_000, server, e, 71, 10, RST | ACK, 0, mp(&[0x80, 3]));
    let mut segs = s.segs;
    segs.sort_by_key(|x| x.ts_ns);
    let frames: Vec<_> = segs.iter().map(Segment::frame).collect();
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

#[test]
fn a_join_is_refused_only_by_its_responder() {
    let s = analyze(&join_endings_capture());
    let a = s.analysis().unwrap();
    let c = &a.mptcp[0];
    // 1: a re-sent SYN/ACK acknowledges nothing (RFC 8684 §3.2), so the later reset
    // leaves it incomplete; 2: the initiator's reset is its own giving up; 3: the
    // responder's reset after the third ACK is the refusal.
    assert_eq!(
        statuses(c),
        vec![(0, SubflowStatus::Initial), (1, SubflowStatus::JoinIncomplete), (2, SubflowStatus::JoinAbandoned), (3, SubflowStatus::JoinRefused)]
    );
    assert_eq!(c.subflows[3].reset_reason, Some(3));
    assert!(c.text.contains("Subflow 2 did not join: its initiator reset it before the join completed."), "{}", c.text);
}

#[test]
fn an_mptcp_offer_answered_without_mp_capable_is_said_to_be_plain_tcp() {
    // MP_CAPABLE SYN, SYN/ACK without it (RFC 8684 §3.1: the connection is plain TCP),
    // then 1000 bytes: no data level, no "MPTCP connection … on 0 of them".
    let (c, sv) = (100_000u32, 500_000u32);
    let mut s = Script { segs: Vec::new() };
    s.add(0, "10.0.0.1:40000", "10.0.0.2:80", c, 0, SYN, 0, capable(&[]));
    s.add(10_000, "10.0.0.2:80", "10.0.0.1:40000", sv, c + 1, SYN | ACK, 0, vec![]);
    s.add(10_000, "10.0.0.1:40000", "10.0.0.2:80", c + 1, sv + 1, ACK | PSH, 1000, vec![]);
    s.add(20_000, "10.0.0.2:80", "10.0.0.1:40000", sv + 1, c + 1001, ACK, 0, vec![]);
    let frames: Vec<_> = s.segs.iter().map(Segment::frame).collect();
    let session = analyze(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let a = session.analysis().unwrap();
    let m = &a.mptcp[0];
    assert_eq!(statuses(m), vec![(0, SubflowStatus::Fallback)]);
    assert_eq!(
        m.text,
        "Connection 0 (10.0.0.1:40000 to 10.0.0.2:80) offered MPTCP (MP_CAPABLE on its SYN) and it was not accepted (the SYN/ACK carried none): plain TCP was used."
    );
}
