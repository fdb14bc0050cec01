//! Runs the decoder over the shared reference captures in /work/shared/captures (skipped
//! silently when the folder does not exist): never panics; packet counts equal the
//! tshark oracle's `frames_total`; the MALFORMED_ files give the expected errors.

use std::path::Path;
use tcpscope_core::decode::{CaptureDecoder, Decoded};
use tcpscope_core::error::{DecodeError, ErrorKind};

const DIR: &str = "/work/shared/captures";

struct Run {
    packets: u64,
    tcp: u64,
    error: Option<DecodeError>,
    out: Vec<Decoded>,
}

fn run(bytes: &[u8], chunk: usize) -> Run {
    let mut d = CaptureDecoder::new();
    let mut out = Vec::new();
    let mut error = None;
    for c in bytes.chunks(chunk) {
        if let Err(e) = d.push(c, &mut |p| out.push(p)) {
            error = Some(e);
            break;
        }
    }
    if error.is_none() {
        error = d.finish().err();
    }
    let tcp = out.iter().filter(|p| matches!(p, Decoded::Tcp(_))).count() as u64;
    Run { packets: d.info().packets, tcp, error, out }
}

fn oracle(path: &Path) -> Option<serde_json::Value> {
    let name = path.file_name()?.to_str()?;
    let stem = name.rsplit_once('.')?.0;
    let text = std::fs::read_to_string(path.with_file_name(format!("{stem}.oracle.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

#[test]
fn reference_captures() {
    let Ok(dir) = std::fs::read_dir(DIR) else { return };
    let mut files: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.to_string_lossy().contains(".pcap")).collect();
    files.sort();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let r = run(&bytes, 1 << 20);
        let small = run(&bytes, 7);
        assert_eq!(r.out, small.out, "{name}: chunking changed the output");
        let o = oracle(&path);
        let frames = o.as_ref().and_then(|o| o["frames_total"].as_u64());
        let tcp_frames = o.as_ref().and_then(|o| o["tcp_frames_total"].as_u64());
        eprintln!("{name}: packets {} tcp {} (oracle {frames:?} / {tcp_frames:?}) error {:?}", r.packets, r.tcp, r.error.as_ref().map(|e| &e.message));
        if name.starts_with("MALFORMED_truncated") {
            let e = r.error.expect("truncated file must fail");
            assert_eq!((e.kind, r.packets, e.packet_index), (ErrorKind::Truncated, 53, Some(53)), "{name}: {e:?}");
        } else if name.starts_with("MALFORMED_bad_record_caplen") {
            let e = r.error.expect("bad caplen must fail");
            assert_eq!((e.kind, r.packets, e.packet_index, e.byte_offset), (ErrorKind::BadLength, 2, Some(2), Some(216)), "{name}: {e:?}");
        } else if name.starts_with("MALFORMED_bad_magic") {
            let e = r.error.expect("bad magic must fail");
            assert_eq!((e.kind, r.packets), (ErrorKind::BadMagic, 0), "{name}: {e:?}");
        } else {
            assert!(r.error.is_none(), "{name}: {:?}", r.error);
            if let Some(f) = frames {
                assert_eq!(r.packets, f, "{name}: packet count differs from tshark");
            }
            // tshark 4.0 does not decode BIG TCP (IPv6 payload length 0) as TCP; we do.
            if let (Some(t), false) = (tcp_frames, name.contains("bigtcp")) {
                assert_eq!(r.tcp, t, "{name}: TCP packet count differs from tshark");
            }
            if let Some(streams) = o.as_ref().and_then(|o| o["tcp_streams"].as_array()) {
                let want: u64 = streams.iter().filter_map(|s| s["payload_bytes"].as_u64()).sum();
                let got: u64 = r.out.iter().map(|p| if let Decoded::Tcp(s) = p { u64::from(s.payload_len) } else { 0 }).sum();
                if !name.contains("bigtcp") {
                    assert_eq!(got, want, "{name}: TCP payload bytes differ from tshark");
                }
            }
        }
    }
}
