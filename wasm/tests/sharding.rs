//! Issue 43 item 2: one capture's connections analysed by N shards (src/shard.rs) merge
//! into exactly the one-session report — every example capture and a generated capture
//! of many connections — or `plan` says why not (then the CLI analyses in one session).

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::report::Report;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::shard::{ids_by_shard, merged_header, plan, Facts};

/// The one-session report as the CLI writes it: the header, then each connection's JSON.
fn lines(s: &Session) -> Vec<String> {
    let r = s.report();
    let mut v = vec![r.header_json()];
    v.extend((0..r.connections.len()).map(|i| Report::connection_json(r.connections, i).unwrap()));
    v
}

/// The report of `count` shards merged; Err(why) when `plan` refuses.
fn sharded(bytes: &[u8], count: u32) -> Result<Vec<String>, String> {
    let mut shards: Vec<Session> = (0..count)
        .map(|i| {
            let mut s = Session::new(AnalysisOptions::default());
            s.shard(i, count);
            for chunk in bytes.chunks(1 << 20) {
                if !s.push(chunk) {
                    break;
                }
            }
            s.finish();
            s
        })
        .collect();
    let facts: Vec<Facts> = shards.iter().map(|s| s.shard_facts().unwrap()).collect();
    // Through JSON, as between the CLI's threads.
    let facts: Vec<Facts> = facts.iter().map(|f| serde_json::from_str(&serde_json::to_string(f).unwrap()).unwrap()).collect();
    let plan = plan(&facts, &AnalysisOptions::default())?;
    for (s, ids) in shards.iter_mut().zip(ids_by_shard(&plan.order, count as usize)) {
        s.renumber(&ids);
    }
    let mut v = vec![merged_header(&shards[plan.header as usize].report().header_json(), plan.order.len())];
    v.extend(plan.order.iter().map(|&(s, i)| Report::connection_json(shards[s as usize].report().connections, i as usize).unwrap()));
    Ok(v)
}

/// `count` short connections from 16 clients to 2 servers, each opening 20 µs after
/// the one before and overlapping (as bench/gen-large.py's short-conns), as a pcap.
fn many_connections(count: u32) -> Vec<u8> {
    use tcpscope_core::decode::tcp_flags::{ACK, FIN};
    use tcpscope_core::synth::{write_pcap, Endian, Flow, Link, Opts, TsResolution, C2S, S2C};
    let mut frames = Vec::new();
    for c in 0..count {
        let client = format!("10.1.{}.{}:{}", c % 16, 2 + c % 7, 1024 + c);
        let server = format!("10.0.0.{}:80", 1 + c % 2);
        let mut f = Flow::new(&client, &server);
        // Times in µs: a 1 ms round trip.
        let t0 = i64::from(c) * 20;
        f.handshake(t0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
        f.data(C2S, t0 + 2_000, 200);
        f.data(S2C, t0 + 3_000, 1448);
        f.data(S2C, t0 + 3_001, 1000 + (c % 3000));
        f.push(C2S, t0 + 4_000);
        f.push(S2C, t0 + 5_000).flags(FIN | ACK);
        frames.extend(f.frames());
    }
    frames.sort_by_key(|fr| fr.ts_ns);
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

/// The first line that differs, shortened (a report line is kilobytes).
fn same(sharded: &[String], one: &[String], what: &str) {
    let cut = |s: &str| s.chars().take(400).collect::<String>();
    if let Some((i, (a, b))) = sharded.iter().zip(one).enumerate().find(|(_, (a, b))| a != b) {
        let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0).saturating_sub(80);
        panic!("{what}: line {i} differs:\n sharded …{}\n one     …{}", cut(a.get(at..).unwrap_or(a)), cut(b.get(at..).unwrap_or(b)));
    }
    assert_eq!(sharded.len(), one.len(), "{what}: lines");
}

#[test]
fn shards_merge_into_the_one_session_report_on_every_example() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../public/examples");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name().into_string().unwrap()).filter(|n| n.ends_with(".pcap") || n.ends_with(".pcapng")).collect();
    names.sort();
    let (mut merged, mut refused) = (0, Vec::new());
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let one = lines(&analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20));
        for count in [2, 3] {
            match sharded(&bytes, count) {
                Ok(v) => {
                    same(&v, &one, &format!("{name}, {count} shards"));
                    merged += 1;
                }
                Err(why) => refused.push(format!("{name}/{count}: {why}")),
            }
        }
    }
    eprintln!("{merged} merged; refused: {refused:?}");
    assert!(merged > 0, "no example merged");
}

#[test]
fn shards_merge_a_many_connection_capture() {
    let bytes = many_connections(3000);
    let one = lines(&analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20));
    assert_eq!(one.len(), 3001);
    for count in [1, 2, 3, 4] {
        let v = sharded(&bytes, count).unwrap_or_else(|why| panic!("{count} shards refused: {why}"));
        same(&v, &one, &format!("{count} shards"));
    }
}
