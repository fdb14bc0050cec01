//! Damaged and non-capture files: each gives one clear fatal error naming the packet
//! and byte offset, keeps everything decoded before it, and never panics — whatever
//! the chunk size.

use tcpscope_core::decode::{CaptureDecoder, Decoded};
use tcpscope_core::error::ErrorKind;
use tcpscope_core::synth::*;

use crate::common;
use common::decode_every_split as decode;

fn five_packets() -> Vec<Frame> {
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    for i in 0..5 {
        f.data(C2S, i * 10, 100);
    }
    f.frames()
}

fn pcap() -> Vec<u8> {
    write_pcap(&five_packets(), &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

const REC: usize = 16 + 14 + 20 + 20 + 100; // one record of `pcap()`

#[test]
fn truncated_mid_packet_keeps_earlier_packets() {
    let bytes = pcap();
    let cut = 24 + 3 * REC + 50; // inside the 4th record
    let (out, info, err) = decode(&bytes[..cut]);
    let e = err.unwrap();
    assert_eq!((e.kind, e.packet_index, e.byte_offset), (ErrorKind::Truncated, Some(3), Some((24 + 3 * REC) as u64)));
    assert!(e.message.contains("packet 4") && e.message.contains(&format!("byte {}", 24 + 3 * REC)), "{}", e.message);
    assert_eq!((out.len(), info.packets), (3, 3));
    // cut inside a record header, too
    let (_, info, err) = decode(&bytes[..24 + REC + 5]);
    assert_eq!((err.unwrap().kind, info.packets), (ErrorKind::Truncated, 1));
    // cut inside the file header
    let e = decode(&bytes[..10]).2.unwrap();
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert!(e.message.contains("10 bytes"), "{}", e.message);
}

#[test]
fn empty_file() {
    let e = decode(&[]).2.unwrap();
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert!(e.message.contains("empty"), "{}", e.message);
}

#[test]
fn not_a_capture_file() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let html = b"<!DOCTYPE html><html><body>hello</body></html>";
    for (bytes, hint) in [(&png[..], "PNG"), (&html[..], "text"), (&[0u8; 64][..], "")] {
        let (out, _, err) = decode(bytes);
        let e = err.unwrap();
        assert_eq!((e.kind, out.len()), (ErrorKind::BadMagic, 0));
        assert!(e.message.contains("expected a pcap magic number") && e.message.contains(hint), "{}", e.message);
    }
    // the error comes as soon as 4 bytes are in, not at the end
    let mut d = CaptureDecoder::new();
    assert!(d.push(&html[..4], &mut |_| {}).is_err());
}

#[test]
fn bad_record_caplen_is_fatal_at_once() {
    let mut bytes = pcap();
    let at = 24 + 2 * REC + 8; // caplen of the 3rd record
    bytes[at..at + 4].copy_from_slice(&0x00FF_FFF0u32.to_le_bytes());
    let (out, info, err) = decode(&bytes);
    let e = err.unwrap();
    assert_eq!((e.kind, e.packet_index, e.byte_offset), (ErrorKind::BadLength, Some(2), Some(at as u64)));
    assert!(e.message.contains("16777200") && e.message.contains("snapshot length 262144"), "{}", e.message);
    assert_eq!((out.len(), info.packets), (2, 2));
    // push reports it without waiting for finish, and keeps reporting it
    let mut d = CaptureDecoder::new();
    let mut n = 0;
    assert!(d.push(&bytes, &mut |_| n += 1).is_err());
    assert!(d.push(&pcap(), &mut |_| n += 1).is_err());
    assert_eq!(d.finish().unwrap_err(), e);
    assert_eq!(n, 2);
}

#[test]
fn big_endian_pcap_and_modified_pcap() {
    let be = write_pcap(&five_packets(), &Link::Ethernet, Endian::Big, TsResolution::Micro);
    assert_eq!(decode(&be).1.packets, 5);
    // Kuznetzov's modified format (a1b2cd34): 24-byte record headers; accepted.
    let mut m = write_pcap_header(1, Endian::Little, TsResolution::Micro, 65535);
    m[..4].copy_from_slice(&0xa1b2_cd34u32.to_le_bytes());
    for f in five_packets() {
        let rec = write_pcap_record(&f, &Link::Ethernet, Endian::Little, TsResolution::Micro);
        m.extend_from_slice(&rec[..16]);
        m.extend_from_slice(&[0; 8]); // ifindex, protocol, pkt_type, pad
        m.extend_from_slice(&rec[16..]);
    }
    let (out, info, err) = decode(&m);
    assert_eq!((err, info.packets), (None, 5));
    assert!(matches!(out[4], Decoded::Tcp(_)));
    // ... but not in big-endian, which pcap-parser cannot frame.
    m[..4].copy_from_slice(&0xa1b2_cd34u32.to_be_bytes());
    assert_eq!(decode(&m).2.unwrap().kind, ErrorKind::Unsupported);
}

fn pcapng(endian: Endian) -> Vec<u8> {
    write_pcapng(&[Section::new(endian, vec![Interface::new(Link::Ethernet)], five_packets())])
}

/// Offsets: SHB 28 bytes, IDB 32 bytes (tsresol option + end), EPBs of 32 + 156 + 4.
const NG_FIRST_EPB: usize = 28 + 32;
const EPB: usize = 32 + 156;

#[test]
fn pcapng_block_lengths_that_lie() {
    for endian in [Endian::Little, Endian::Big] {
        let good = pcapng(endian);
        assert_eq!(decode(&good).1.packets, 5);
        let put = |b: &mut Vec<u8>, at: usize, v: u32| {
            let x = if endian == Endian::Big { v.to_be_bytes() } else { v.to_le_bytes() };
            b[at..at + 4].copy_from_slice(&x);
        };
        let third = NG_FIRST_EPB + 2 * EPB;
        // leading length enormous: refused at once
        let mut b = good.clone();
        put(&mut b, third + 4, 0x7000_0000);
        let (_, info, e) = decode(&b);
        let e = e.unwrap();
        assert_eq!((e.kind, e.packet_index, e.byte_offset, info.packets), (ErrorKind::BadLength, Some(2), Some(third as u64), 2));
        // leading length not a multiple of 4
        let mut b = good.clone();
        put(&mut b, third + 4, EPB as u32 + 2);
        assert_eq!(decode(&b).2.unwrap().kind, ErrorKind::BadLength);
        // trailing length differs from the leading one
        let mut b = good.clone();
        put(&mut b, third + EPB - 4, 12);
        let (_, info, e) = decode(&b);
        assert_eq!((e.unwrap().kind, info.packets), (ErrorKind::BadLength, 2));
        // EPB captured length larger than the block
        let mut b = good.clone();
        put(&mut b, third + 20, 4000);
        let (_, info, e) = decode(&b);
        let e = e.unwrap();
        assert_eq!((e.kind, info.packets), (ErrorKind::BadLength, 2));
        assert!(e.message.contains(&format!("byte {third}")), "{}", e.message);
        // truncated inside a block
        let (_, info, e) = decode(&good[..third + 40]);
        assert_eq!((e.unwrap().kind, info.packets), (ErrorKind::Truncated, 2));
        // packet naming an interface that does not exist: a warning, not fatal
        let mut b = good.clone();
        put(&mut b, third + 8, 7);
        let (out, info, e) = decode(&b);
        assert_eq!((e, out.len()), (None, 5));
        assert_eq!(info.warnings.values().sum::<u64>(), 1);
    }
}

#[test]
fn pcapng_bad_byte_order_magic() {
    let mut b = pcapng(Endian::Little);
    b[8] ^= 0xff;
    assert_eq!(decode(&b).2.unwrap().kind, ErrorKind::BadMagic);
}

/// Deterministic mutations of valid files: decoding must never panic.
#[test]
fn mutations_never_panic() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let links = [Link::Ethernet, Link::LinuxSll2, Link::Radiotap { ht_control: true }, Link::Null { big_endian: true, af_inet6: 30 }, Link::Nflog { big_endian: false }];
    for link in &links {
        let files = [
            write_pcap(&five_packets(), link, Endian::Little, TsResolution::Nano),
            write_pcapng(&[Section::new(Endian::Big, vec![Interface::new(link.clone())], five_packets())]),
        ];
        for file in &files {
            for _ in 0..1000 {
                let mut b = file.clone();
                for _ in 0..1 + rnd() % 4 {
                    let i = (rnd() as usize) % b.len();
                    b[i] = rnd() as u8;
                }
                let cut = b.len() - (rnd() as usize % 8);
                let mut d = CaptureDecoder::new();
                for c in b[..cut].chunks(1 + rnd() as usize % 64) {
                    if d.push(c, &mut |_| {}).is_err() {
                        break;
                    }
                }
                let _ = d.finish();
            }
        }
    }
}
