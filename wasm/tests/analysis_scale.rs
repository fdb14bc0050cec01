//! Scale check: many connections through the analyzer (a port scan / busy server
//! shape: a SYN and a SYN/ACK per connection). Run the 1M case explicitly:
//! cargo test --test all analysis_scale:: -- --ignored --nocapture

use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use tcpscope_core::analysis::{AnalysisOptions, Analyzer};
use tcpscope_core::decode::{tcp_flags, TcpOptions, TcpSegment};

fn run(n: u32) -> usize {
    let mut an = Analyzer::new(AnalysisOptions::default());
    let t = Instant::now();
    for i in 0..n {
        let client = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + (i >> 16)));
        let server = IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1));
        let port = (i & 0xffff) as u16;
        let mut seg = TcpSegment {
            packet_index: 2 * i as u64,
            ts_ns: i as i64 * 1000,
            wire_len: 74,
            src: client,
            dst: server,
            src_port: port,
            dst_port: 443,
            seq: i.wrapping_mul(7919),
            ack: 0,
            flags: tcp_flags::SYN,
            window: 64240,
            ecn: 0,
            payload_len: 0,
            options: TcpOptions { window_scale: Some(7), ..Default::default() },
            tls_alert: None,
            mptcp: None,
            frame_id: Default::default(),
            meta: Default::default(),
        };
        an.push(&seg, 0);
        seg.packet_index += 1;
        std::mem::swap(&mut seg.src, &mut seg.dst);
        seg.src_port = 443;
        seg.dst_port = port;
        seg.ack = seg.seq.wrapping_add(1);
        seg.seq = 1;
        seg.flags = tcp_flags::SYN | tcp_flags::ACK;
        an.push(&seg, 0);
    }
    let pushed = t.elapsed();
    let a = an.finish();
    println!("{n} connections: push {:?}, total {:?}", pushed, t.elapsed());
    assert_eq!(a.connections.len(), n as usize);
    assert_eq!(a.connections[n as usize - 1].packets, 2);
    assert_eq!(a.connections[n as usize - 1].id, n - 1);
    a.connections.len()
}

#[test]
fn hundred_thousand_connections() {
    assert_eq!(run(100_000), 100_000);
}

#[test]
#[ignore]
fn one_million_connections() {
    assert_eq!(run(1_000_000), 1_000_000);
}

#[test]
fn sizes() {
    use tcpscope_core::analysis::{ConnectionColumns, ConnectionSummary};
    println!(
        "ConnectionSummary {} B, ConnectionColumns {} B",
        std::mem::size_of::<ConnectionSummary>(),
        std::mem::size_of::<ConnectionColumns>()
    );
}
