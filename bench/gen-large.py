#!/usr/bin/env python3
"""bench/gen-large.py - generate large synthetic TCP captures for `npm run bench` (stdlib only).

Writes, once, into .bench/ (gitignored) at the repository root:

  bulk-snap96.pcap     one bulk transfer, 1 Gbit/s, 10 ms RTT, snaplen 96
                       (~2.5 million packets at BENCH_SCALE=1)
  bulk-full.pcap       one bulk transfer with full-size frames (1514 bytes captured),
                       ~1 GB of file at BENCH_SCALE=1
  short-conns.pcap     100,000 short request/response connections (x BENCH_SCALE),
                       overlapping in time

and beside each a NAME.json with what was generated (packet count, payload bytes,
connections, parameters) so that a runner can check it read everything.

Environment:
  BENCH_SCALE   float, default 1. Multiplies every size above (0.01 for a smoke test).
  BENCH_DIR     output folder, default <repo>/.bench
  BENCH_FILES   space-separated subset of the names above (default: all).
  BENCH_FORCE=1 regenerate even if the files exist with the same parameters.

What the traffic looks like (valid pcap, LINKTYPE_ETHERNET, microsecond timestamps):
  * Ethernet II / IPv4 (correct header checksum, DF, TTL 64) / TCP. TCP checksums are 0,
    as captured on a sender with checksum offload; snaplen 96 cuts the payload anyway.
  * Every connection starts with a full handshake (MSS 1460, SACK permitted, timestamps,
    window scale 7) and ends with FIN/ACK in both directions.
  * Bulk: the sender transmits MSS-sized segments (1448 payload bytes + 12 bytes of
    timestamp option), in slow start from 10 segments (one RTT of ramp-up per doubling),
    then back to back at the link rate; the receiver ACKs every 2nd segment, one RTT after
    the second one was sent (the capture point is the sender). The receiver
    advertises a 4 MiB window (raw 32768 << 7), well above the in-flight amount
    (1 Gbit/s x 10 ms = 1.25 MB), so the flow is link-limited.
  * Short connections: client 10.1.x.y:port -> server 10.0.0.1:80, a 200-byte request,
    a 1-4 segment response, ACKs, FIN exchange; one new connection every 20 us of
    capture time, 1 ms RTT, so a few dozen are open at once.
"""
import heapq
import json
import os
import struct
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.environ.get("BENCH_DIR", os.path.join(ROOT, ".bench"))
SCALE = float(os.environ.get("BENCH_SCALE", "1"))
FORCE = os.environ.get("BENCH_FORCE") == "1"
VERSION = 1  # bump when the generated traffic changes

MSS = 1448  # payload per segment with the 12-byte timestamp option
T0 = 1767225600.0  # 2026-01-01T00:00:00Z, first packet of every file

REC = struct.Struct("<IIII")
IPH = struct.Struct("!BBHHHBBH4s4s")
TCPH = struct.Struct("!HHIIBBHHH")
TSOPT = struct.Struct("!BBBBII")  # NOP NOP TS(8,10) tsval tsecr
SYNOPT_A = bytes([2, 4, 0x05, 0xB4, 4, 2])  # MSS 1460, SACK permitted; then TS (10 bytes), NOP + WS
SYNOPT_B = bytes([1, 3, 3, 7])  # NOP, window scale 7

F_FIN, F_SYN, F_RST, F_PSH, F_ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def ip4(s):
    return bytes(int(x) for x in s.split("."))


class PcapWriter:
    def __init__(self, path, snaplen):
        self.f = open(path, "wb", buffering=8 << 20)
        self.snaplen = snaplen
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        self.packets = 0
        self.wire_bytes = 0
        self.payload = b"\x00" * 65536  # shared payload source; TCP checksum is 0 anyway

    def close(self):
        self.f.close()


class Endpoint:
    """One side of a TCP connection: MACs, addresses and the constant parts of its headers."""

    def __init__(self, mac_src, mac_dst, ip_src, ip_dst, sport, dport, ident0):
        self.eth = mac_dst + mac_src + b"\x08\x00"
        self.src, self.dst = ip_src, ip_dst
        self.sport, self.dport = sport, dport
        self.ident = ident0
        # constant part of the IP header checksum: version/IHL/TOS, flags/frag (DF), TTL/proto, addresses
        s = 0x4500 + 0x4000 + 0x4006
        for b in (ip_src, ip_dst):
            s += (b[0] << 8 | b[1]) + (b[2] << 8 | b[3])
        self.csum_base = s

    def packet(self, w, t, seq, ack, flags, win, plen, tsval, tsecr, opts=None):
        """Append one frame at time t (seconds since T0) to writer w."""
        if opts is None:
            opt = TSOPT.pack(1, 1, 8, 10, tsval & 0xFFFFFFFF, tsecr & 0xFFFFFFFF)
        else:
            opt = opts
        thl = 20 + len(opt)
        tot = 20 + thl + plen
        self.ident = (self.ident + 1) & 0xFFFF
        s = self.csum_base + tot + self.ident
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        iph = IPH.pack(0x45, 0, tot, self.ident, 0x4000, 64, 6, (~s) & 0xFFFF, self.src, self.dst)
        tcph = TCPH.pack(self.sport, self.dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                         (thl // 4) << 4, flags, win, 0, 0)
        frame_len = 14 + tot
        hdr = self.eth + iph + tcph + opt
        cap = min(frame_len, w.snaplen)
        if cap > len(hdr):
            data = hdr + w.payload[: cap - len(hdr)]
        else:
            data = hdr[:cap]
        ts = T0 + t
        sec = int(ts)
        usec = int(round((ts - sec) * 1e6))
        if usec >= 1000000:
            sec += 1; usec -= 1000000
        w.f.write(REC.pack(sec, usec, cap, frame_len))
        w.f.write(data)
        w.packets += 1
        w.wire_bytes += frame_len


MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")


def tsval(t):
    return int(1_000_000 + t * 1000)  # 1 kHz timestamp clock


def gen_bulk(path, segments, snaplen, rate_bps=1e9, rtt=0.010):
    """One bulk A->B transfer of `segments` full segments; returns metadata."""
    w = PcapWriter(path, snaplen)
    a = Endpoint(MAC_A, MAC_B, ip4("10.0.0.1"), ip4("10.0.0.2"), 40000, 5201, 1000)
    b = Endpoint(MAC_B, MAC_A, ip4("10.0.0.2"), ip4("10.0.0.1"), 5201, 40000, 50000)
    isn_a, isn_b = 123456789, 987654321
    win_raw = 32768  # << 7 = 4 MiB
    # handshake (capture at A): SYN at 0, SYN/ACK at rtt, ACK right after
    a.packet(w, 0.0, isn_a, 0, F_SYN, 64240, 0, 0, 0, SYNOPT_A + bytes(TSOPT.pack(1, 1, 8, 10, tsval(0), 0))[2:] + SYNOPT_B)
    b.packet(w, rtt, isn_b, isn_a + 1, F_SYN | F_ACK, 65160, 0, 0, 0, SYNOPT_A + bytes(TSOPT.pack(1, 1, 8, 10, tsval(rtt), tsval(0)))[2:] + SYNOPT_B)
    t = rtt + 0.00001
    a.packet(w, t, isn_a + 1, isn_b + 1, F_ACK, 502, 0, tsval(t), tsval(rtt))
    dt = (14 + 20 + 32 + MSS) * 8 / rate_bps  # serialization time of one full frame
    seq0 = isn_a + 1
    ack_b = isn_b + 1
    # Sender: slow start from an initial window of 10 segments (+1 segment per segment
    # ACKed) up to a cap above the bandwidth-delay product, then link-rate limited.
    # Receiver: ACKs every 2nd segment one RTT after it was sent (capture at the sender).
    cwnd = 10
    cwnd_cap = int(rtt / dt * 1.5) + 10
    acked = 0  # segments cumulatively ACKed so far (as seen at the sender)
    acks = []  # pending ACK events: (time, segments covered), in time order
    ai = 0
    link_free = t + 0.00001
    now = link_free
    last_seg = segments - 1
    ta = now

    def emit_ack(ev):
        tt, cov = ev
        b.packet(w, tt, ack_b, seq0 + cov * MSS, F_ACK, win_raw, 0, tsval(tt), tsval(tt - rtt))

    for n in range(segments):
        while n - acked >= cwnd:  # window full: wait for the next ACK
            ev = acks[ai]; ai += 1
            emit_ack(ev)
            now = max(now, ev[0])
            if cwnd < cwnd_cap:
                cwnd = min(cwnd_cap, cwnd + (ev[1] - acked))
            acked = ev[1]
        ts_n = max(now, link_free)
        while ai < len(acks) and acks[ai][0] <= ts_n:  # ACKs that arrive before this segment
            ev = acks[ai]; ai += 1
            emit_ack(ev)
            if cwnd < cwnd_cap:
                cwnd = min(cwnd_cap, cwnd + (ev[1] - acked))
            acked = ev[1]
        if ai > 4096:  # keep the pending list short
            del acks[:ai]; ai = 0
        flags = F_ACK | (F_PSH if n % 32 == 31 else 0)
        a.packet(w, ts_n, seq0 + n * MSS, ack_b, flags, 502, MSS, tsval(ts_n), tsval(ts_n - rtt))
        link_free = ts_n + dt
        now = ts_n
        if n % 2 == 1 or n == last_seg:
            acks.append((ts_n + rtt, n + 1))
    t_end = now
    for ev in acks[ai:]:
        emit_ack(ev)
        ta = ev[0]
    fin_seq = seq0 + segments * MSS
    tf = max(t_end + dt, ta) + 0.0001
    a.packet(w, tf, fin_seq, ack_b, F_FIN | F_ACK, 502, 0, tsval(tf), tsval(ta))
    b.packet(w, tf + rtt, ack_b, fin_seq + 1, F_FIN | F_ACK, win_raw, 0, tsval(tf + rtt), tsval(tf))
    a.packet(w, tf + rtt + 0.00001, fin_seq + 1, ack_b + 1, F_ACK, 502, 0, tsval(tf + rtt), tsval(tf + rtt))
    w.close()
    return {"packets": w.packets, "wire_bytes": w.wire_bytes, "tcp_connections": 1,
            "payload_bytes": segments * MSS, "data_segments": segments,
            "link_rate_bps": rate_bps, "rtt_s": rtt, "snaplen": snaplen,
            "receiver_window_bytes": win_raw << 7, "duration_s": round(tf + rtt, 6)}


def gen_short(path, conns, gap=20e-6, rtt=0.001):
    """`conns` short HTTP-like connections, merged in time order; returns metadata."""
    w = PcapWriter(path, 65535)
    server = ip4("10.0.0.1")
    heap = []  # (time, seq_no, endpoint, args)
    counter = 0
    payload = 0
    half = rtt / 2  # capture point in the middle of the path: each direction half an RTT
    resp_sizes = (1000, 3000, 5000, 2896)

    def push(t, ep, *args):
        nonlocal counter
        counter += 1
        heapq.heappush(heap, (t, counter, ep, args))

    for c in range(conns):
        t = c * gap
        k = c // 20000 + 2  # 20,000 connections per client address, distinct source ports
        cip = bytes([10, 1, (k >> 8) & 0xFF, k & 0xFF])
        port = 1024 + c % 20000
        cl = Endpoint(MAC_A, MAC_B, cip, server, port, 80, c & 0xFFFF)
        sv = Endpoint(MAC_B, MAC_A, server, cip, 80, port, (c * 7) & 0xFFFF)
        ic, is_ = (c * 2654435761) & 0xFFFFFFFF, (c * 40503 + 17) & 0xFFFFFFFF
        req = 200
        resp = resp_sizes[c % len(resp_sizes)]
        payload += req + resp
        # client SYN, server SYN/ACK, client ACK + request
        push(t, cl, ic, 0, F_SYN, 64240, 0, 0, 0, SYNOPT_A + bytes(TSOPT.pack(1, 1, 8, 10, tsval(t), 0))[2:] + SYNOPT_B)
        t += half; push(t, sv, is_, ic + 1, F_SYN | F_ACK, 65160, 0, 0, 0, SYNOPT_A + bytes(TSOPT.pack(1, 1, 8, 10, tsval(t), tsval(t)))[2:] + SYNOPT_B)
        t += half; push(t, cl, ic + 1, is_ + 1, F_ACK, 502, 0, tsval(t), tsval(t), None)
        push(t + 2e-6, cl, ic + 1, is_ + 1, F_ACK | F_PSH, 502, req, tsval(t), tsval(t), None)
        t += half
        # response in MSS-sized segments, back to back (12 us apart)
        off = 0
        k = 0
        while off < resp:
            ln = min(MSS, resp - off)
            fl = F_ACK | (F_PSH if off + ln >= resp else 0)
            push(t + k * 12e-6, sv, is_ + 1 + off, ic + 1 + req, fl, 509, ln, tsval(t), tsval(t), None)
            off += ln; k += 1
        t += k * 12e-6 + half
        push(t, cl, ic + 1 + req, is_ + 1 + resp, F_ACK, 502, 0, tsval(t), tsval(t), None)
        push(t + 5e-6, cl, ic + 1 + req, is_ + 1 + resp, F_FIN | F_ACK, 502, 0, tsval(t), tsval(t), None)
        t += half; push(t, sv, is_ + 1 + resp, ic + 2 + req, F_FIN | F_ACK, 509, 0, tsval(t), tsval(t), None)
        t += half; push(t, cl, ic + 2 + req, is_ + 2 + resp, F_ACK, 502, 0, tsval(t), tsval(t), None)
        # flush everything that can no longer be overtaken (all later connections start later)
        while heap and heap[0][0] <= c * gap:
            tt, _, ep, args = heapq.heappop(heap)
            ep.packet(w, tt, *args)
    while heap:
        tt, _, ep, args = heapq.heappop(heap)
        ep.packet(w, tt, *args)
    w.close()
    return {"packets": w.packets, "wire_bytes": w.wire_bytes, "tcp_connections": conns,
            "payload_bytes": payload, "rtt_s": rtt, "new_connection_every_s": gap, "snaplen": 65535}


def main():
    os.makedirs(OUT, exist_ok=True)
    bulk_segments = max(10, int(1_650_000 * SCALE))           # + ~825k ACKs = ~2.5 M packets
    full_segments = max(10, int(1_000_000_000 * SCALE / 1530))  # 1514-byte frames + 16-byte records
    short_conns = max(10, int(100_000 * SCALE))
    jobs = [
        ("bulk-snap96", lambda p: gen_bulk(p, bulk_segments, 96), {"segments": bulk_segments, "snaplen": 96}),
        ("bulk-full", lambda p: gen_bulk(p, full_segments, 65535), {"segments": full_segments, "snaplen": 65535}),
        ("short-conns", lambda p: gen_short(p, short_conns), {"connections": short_conns}),
    ]
    only = os.environ.get("BENCH_FILES", "").split()
    for name, fn, params in jobs:
        if only and name not in only:
            continue
        path = os.path.join(OUT, name + ".pcap")
        meta_path = os.path.join(OUT, name + ".json")
        params = dict(params, generator_version=VERSION)
        if not FORCE and os.path.exists(path) and os.path.exists(meta_path):
            try:
                old = json.load(open(meta_path))
                if old.get("params") == params and old.get("file_bytes") == os.path.getsize(path):
                    print("gen-large: %s exists (%d packets), skipping" % (path, old["packets"]), file=sys.stderr)
                    continue
            except (ValueError, KeyError):
                pass
        t0 = time.time()
        tmp = path + ".tmp"
        meta = fn(tmp)
        os.replace(tmp, path)
        meta.update({"file": name + ".pcap", "file_bytes": os.path.getsize(path), "params": params,
                     "bench_scale": SCALE, "generated_in_s": round(time.time() - t0, 1)})
        with open(meta_path, "w") as fh:
            json.dump(meta, fh, indent=1)
            fh.write("\n")
        print("gen-large: wrote %s: %d packets, %.1f MB in %.1f s" % (
            path, meta["packets"], meta["file_bytes"] / 1e6, time.time() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
