// A large bulk-transfer capture written by the test or benchmark that needs it (never
// committed; e2e/progressive.spec.ts, scripts/bench.sh's progressive step):
// one connection, a handshake, then MSS-sized segments back to back at 1 Gbit/s with
// the receiver ACKing every second one a 0.4 ms round trip later, snaplen 96 (as
// bench/gen-large.py's bulk-snap96, in Node so that 10^7 packets take seconds, not
// minutes). pcap, LINKTYPE_ETHERNET, µs timestamps; TCP checksums 0 (an offloading
// sender), IPv4 header checksums correct.
import { closeSync, openSync, writeSync } from 'node:fs';

const MSS = 1448;
const SNAP = 96;
const FRAME = 14 + 20 + 20;
const SEG_US = ((FRAME + MSS) * 8) / 1000; // 1 Gbit/s: µs per data frame
const RTT_US = 400; // in flight (50 kB) within the unscaled 64 KiB window

/** Writes `packets` packets (about) to `path`; returns the capture's duration in s. */
export function writeBulkCapture(path, packets) {
  const fd = openSync(path, 'w');
  const buf = Buffer.alloc(16 << 20);
  let at = 0;
  const flush = () => { writeSync(fd, buf, 0, at); at = 0; };
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0); header.writeUInt16LE(2, 4); header.writeUInt16LE(4, 6);
  header.writeUInt32LE(SNAP, 16); header.writeUInt32LE(1, 20);
  writeSync(fd, header);
  const ids = [1, 1];
  // dir 0: 10.0.0.1:40000 → 10.0.0.2:5201 (sender); dir 1 the receiver.
  const frame = (tUs, dir, flags, seq, ack, payload) => {
    if (at + 16 + SNAP > buf.length) flush();
    const caplen = Math.min(SNAP, FRAME + payload);
    buf.writeUInt32LE(Math.floor(tUs / 1e6), at); buf.writeUInt32LE(Math.floor(tUs % 1e6), at + 4);
    buf.writeUInt32LE(caplen, at + 8); buf.writeUInt32LE(FRAME + payload, at + 12);
    const e = at + 16;
    buf.fill(0, e, e + caplen);
    buf[e + 5] = dir === 0 ? 1 : 2; buf[e + 11] = dir === 0 ? 2 : 1; buf.writeUInt16BE(0x0800, e + 12);
    const ip = e + 14;
    buf[ip] = 0x45; buf.writeUInt16BE(20 + 20 + payload, ip + 2); buf.writeUInt16BE(ids[dir]++ & 0xffff, ip + 4);
    buf.writeUInt16BE(0x4000, ip + 6); buf[ip + 8] = 64; buf[ip + 9] = 6;
    buf.writeUInt32BE(dir === 0 ? 0x0a000001 : 0x0a000002, ip + 12); buf.writeUInt32BE(dir === 0 ? 0x0a000002 : 0x0a000001, ip + 16);
    let sum = 0;
    for (let i = 0; i < 20; i += 2) sum += buf.readUInt16BE(ip + i);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    buf.writeUInt16BE(~sum & 0xffff, ip + 10);
    const tcp = ip + 20;
    buf.writeUInt16BE(dir === 0 ? 40000 : 5201, tcp); buf.writeUInt16BE(dir === 0 ? 5201 : 40000, tcp + 2);
    buf.writeUInt32BE(seq >>> 0, tcp + 4); buf.writeUInt32BE(ack >>> 0, tcp + 8);
    buf[tcp + 12] = 0x50; buf[tcp + 13] = flags; buf.writeUInt16BE(65535, tcp + 14);
    at += 16 + caplen;
  };
  const [SYN, ACK, PSH] = [0x02, 0x10, 0x08];
  const isn = [1000, 5000];
  let t = 1_767_225_600e6;
  frame(t, 0, SYN, isn[0], 0, 0);
  frame(t + RTT_US, 1, SYN | ACK, isn[1], isn[0] + 1, 0);
  frame(t + RTT_US + 5, 0, ACK, isn[0] + 1, isn[1] + 1, 0);
  t += RTT_US + 10;
  const acks = []; // [time, ack] in time order
  let next = 0;
  const segments = Math.floor((packets - 3) * 2 / 3);
  for (let i = 0; i < segments; i++) {
    while (next < acks.length && acks[next][0] <= t) { frame(acks[next][0], 1, ACK, isn[1] + 1, acks[next][1], 0); next++; }
    if (next > 4096) { acks.splice(0, next); next = 0; }
    const seq = isn[0] + 1 + i * MSS;
    frame(t, 0, ACK | PSH, seq, isn[1] + 1, MSS);
    if (i % 2 === 1) acks.push([t + RTT_US, seq + MSS]);
    t += SEG_US;
  }
  for (; next < acks.length; next++) frame(acks[next][0], 1, ACK, isn[1] + 1, acks[next][1], 0);
  flush();
  closeSync(fd);
  return (t - 1_767_225_600e6) / 1e6;
}

// `node bench/bulk-capture.mjs FILE PACKETS`: writes FILE unless it exists.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [file, packets] = process.argv.slice(2);
  if (!file || !(Number(packets) > 3)) {
    console.error('usage: node bench/bulk-capture.mjs FILE PACKETS');
    process.exit(2);
  }
  const { existsSync } = await import('node:fs');
  if (!existsSync(file)) console.error(`bulk-capture: wrote ${file}: ${Number(packets)} packets, ${writeBulkCapture(file, Number(packets)).toFixed(1)} s of capture`);
}
