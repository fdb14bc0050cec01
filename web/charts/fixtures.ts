// Fixture ConnectionData for chart tests, stories and the demo page: hand-written rows
// (`connectionData`) and a small deterministic bulk-transfer simulation
// (`makeFixture`) with window-limited rounds, a retransmission timeout stall, SACK
// blocks, duplicate ACKs, a zero window and RTT samples.

import { FLAG, SCHEMA_VERSION, type ConnectionData, type DirectionSummary, type PacketColumns, type Stall } from '../model/types';

export interface Row {
  t: number; dir: 0 | 1; seq?: number; len?: number; wireLen?: number;
  ack?: number; win?: number; inFlight?: number; flags?: number; frame?: number;
}

export function packetColumns(rows: Row[]): PacketColumns {
  const n = rows.length;
  const c: PacketColumns = {
    t: new Float64Array(n), dir: new Uint8Array(n), frame: new Uint32Array(n), seq: new Float64Array(n),
    len: new Uint32Array(n), wireLen: new Uint32Array(n), ack: new Float64Array(n), win: new Float64Array(n),
    inFlight: new Float64Array(n), flags: new Uint32Array(n),
  };
  rows.forEach((r, i) => {
    c.t[i] = r.t; c.dir[i] = r.dir; c.frame[i] = r.frame ?? i + 1; c.seq[i] = r.seq ?? 0;
    c.len[i] = r.len ?? 0; c.wireLen[i] = r.wireLen ?? (r.len ?? 0) + 66;
    c.ack[i] = r.ack ?? NaN; c.win[i] = r.win ?? NaN; c.inFlight[i] = r.inFlight ?? NaN;
    c.flags[i] = r.flags ?? FLAG.ACK;
  });
  return c;
}

export function directionSummary(over: Partial<DirectionSummary> = {}): DirectionSummary {
  return {
    from: '10.0.0.1:40000', to: '10.0.0.2:5201', packets: 0, payloadBytes: 0, bytes: 0,
    windowScale: 7, windowScaleUnknown: false, windowScaleLowerBound: null,
    receiveWindow: null, maxBytesInFlight: null,
    retransmissions: 0, fastRetransmissions: 0, spuriousRetransmissions: 0, duplicateAcks: 0,
    zeroWindows: 0, zeroWindowProbes: 0, windowFull: 0, keepAlives: 0, lostSegments: 0, outOfOrder: 0,
    throughput: { meanBps: 0, peakBps: 0, binSeconds: 0.1 },
    rtt: { minMs: null, medianMs: null },
    stalls: [],
    ...over,
  };
}

export interface FixtureInput {
  rows: Row[];
  dataDirection?: 0 | 1;
  directions?: [Partial<DirectionSummary>, Partial<DirectionSummary>];
  sack?: { t: number; dir: 0 | 1; left: number; right: number }[];
  rtt?: { t: number; dir: 0 | 1; rttMs: number; kind?: number }[];
  id?: number;
}

export function connectionData(input: FixtureInput): ConnectionData {
  const packets = packetColumns(input.rows);
  const sack = input.sack ?? [];
  const rtt = input.rtt ?? [];
  const [d0, d1] = input.directions ?? [{}, {}];
  const ts = input.rows.map((r) => r.t);
  return {
    schemaVersion: SCHEMA_VERSION,
    summary: {
      id: input.id ?? 0,
      endpoints: ['10.0.0.1:40000', '10.0.0.2:5201'],
      handshakeSeen: true,
      packets: input.rows.length,
      // reduce, not Math.min(...ts): spreading 10^5+ arguments overflows the stack.
      start: ts.length ? ts.reduce((a, b) => Math.min(a, b)) : 0,
      end: ts.length ? ts.reduce((a, b) => Math.max(a, b)) : 0,
      dataDirection: input.dataDirection ?? 0,
      directions: [
        directionSummary({ packets: input.rows.filter((r) => r.dir === 0).length, ...d0 }),
        directionSummary({ from: '10.0.0.2:5201', to: '10.0.0.1:40000', packets: input.rows.filter((r) => r.dir === 1).length, ...d1 }),
      ],
      diagnosis: { limit: 'receive-window', text: '', shares: { receiveWindow: 0, loss: 0, application: 0, stalled: 0, other: 0 } },
    },
    packets,
    sack: {
      t: Float64Array.from(sack.map((s) => s.t)), dir: Uint8Array.from(sack.map((s) => s.dir)),
      left: Float64Array.from(sack.map((s) => s.left)), right: Float64Array.from(sack.map((s) => s.right)),
    },
    rtt: {
      t: Float64Array.from(rtt.map((s) => s.t)), dir: Uint8Array.from(rtt.map((s) => s.dir)),
      rttMs: Float64Array.from(rtt.map((s) => s.rttMs)), kind: Uint8Array.from(rtt.map((s) => s.kind ?? 0)),
    },
  };
}

export interface SimOptions {
  /** Number of send rounds (one RTT each). */
  rounds?: number;
  rttMs?: number;
  mss?: number;
  /** Advertised window, bytes (a multiple of mss keeps the rounds window-limited). */
  rwnd?: number;
  /** Round in which one segment is lost and recovered only by the retransmission timer. */
  lossRound?: number;
  rtoMs?: number;
  windowScaleUnknown?: boolean;
  id?: number;
  startT?: number;
}

/**
 * A window-limited bulk transfer in direction 0: each round sends rwnd/mss segments
 * back to back, the receiver ACKs every segment one RTT later. In `lossRound` the
 * third segment is lost: the receiver sends duplicate ACKs with SACK blocks, the
 * window fills, and the sender retransmits after `rtoMs` (a retransmission-timeout
 * stall). The receiver then advertises a zero window once, reopening 50 ms later.
 */
export function makeFixture(o: SimOptions = {}): ConnectionData {
  const rounds = o.rounds ?? 40, rtt = (o.rttMs ?? 10) / 1000, mss = o.mss ?? 1000;
  const rwnd = o.rwnd ?? 8000, lossRound = o.lossRound ?? 20, rto = (o.rtoMs ?? 200) / 1000;
  const perRound = Math.max(1, Math.floor(rwnd / mss));
  const gapBetween = 0.0001;
  const rows: Row[] = [];
  const sack: NonNullable<FixtureInput['sack']> = [];
  const rttSamples: NonNullable<FixtureInput['rtt']> = [];
  let t = o.startT ?? 0;
  rows.push({ t, dir: 0, seq: 0, flags: FLAG.SYN, win: 64240 });
  rows.push({ t: t + rtt, dir: 1, seq: 0, ack: 1, win: 65160, flags: FLAG.SYN | FLAG.ACK });
  t += rtt;
  rows.push({ t: t + 0.00005, dir: 0, seq: 1, ack: 1, win: 502 * 128 });
  let next = 1; // next sequence number to send
  let acked = 1;
  let stall: Stall | null = null;
  for (let r = 0; r < rounds; r++) {
    const roundStart = t + 0.0001;
    const sent: { seq: number; t: number; lost: boolean }[] = [];
    for (let k = 0; k < perRound; k++) {
      const ts = roundStart + k * gapBetween;
      const lost = r === lossRound && k === 2;
      rows.push({ t: ts, dir: 0, seq: next, len: mss, ack: 1, win: 502 * 128, inFlight: next + mss - acked });
      sent.push({ seq: next, t: ts, lost });
      next += mss;
    }
    // The receiver's ACKs, one RTT after each segment.
    let holeAt = NaN;
    for (const s of sent) {
      const ta = s.t + rtt;
      if (s.lost) { holeAt = s.seq; continue; }
      if (Number.isNaN(holeAt)) {
        acked = s.seq + mss;
        rows.push({ t: ta, dir: 1, seq: 1, ack: acked, win: rwnd });
        rttSamples.push({ t: ta, dir: 0, rttMs: (ta - s.t) * 1000 });
      } else {
        rows.push({ t: ta, dir: 1, seq: 1, ack: holeAt, win: rwnd, flags: FLAG.ACK | FLAG.DUPLICATE_ACK });
        sack.push({ t: ta, dir: 1, left: holeAt + mss, right: s.seq + mss });
      }
    }
    t = sent[sent.length - 1].t + rtt;
    if (!Number.isNaN(holeAt)) {
      // Window full, nothing more can be sent: the retransmission timer fires.
      const lastSend = sent[sent.length - 1].t;
      const tr = lastSend + rto;
      rows.push({ t: tr, dir: 0, seq: holeAt, len: mss, ack: 1, win: 502 * 128, inFlight: next - acked,
        flags: FLAG.ACK | FLAG.RETRANSMISSION });
      stall = { start: lastSend, duration: rto, cause: 'retransmission-timeout', frameBefore: 0, frameAfter: rows.length,
        endedBy: `retransmission of ${mss} bytes` };
      acked = next;
      rows.push({ t: tr + rtt, dir: 1, seq: 1, ack: acked, win: rwnd });
      t = tr + rtt;
    }
    if (r === lossRound + 5) {
      rows.push({ t: t + 0.001, dir: 1, seq: 1, ack: acked, win: 0, flags: FLAG.ACK | FLAG.ZERO_WINDOW });
      rows.push({ t: t + 0.05, dir: 1, seq: 1, ack: acked, win: rwnd, flags: FLAG.ACK | FLAG.WINDOW_UPDATE });
      t += 0.05;
    }
  }
  rows.push({ t: t + 0.0001, dir: 0, seq: next, flags: FLAG.FIN | FLAG.ACK, ack: 1, win: 502 * 128 });
  rows.push({ t: t + 0.0001 + rtt, dir: 1, seq: 1, ack: next + 1, flags: FLAG.FIN | FLAG.ACK, win: rwnd });
  rows.sort((a, b) => a.t - b.t);
  // An unknown window scale means the capture missed the handshake: drop SYN and SYN/ACK.
  if (o.windowScaleUnknown) {
    const kept = rows.filter((r) => !((r.flags ?? 0) & FLAG.SYN));
    rows.length = 0;
    for (const r of kept) rows.push(r);
  }
  rows.forEach((r, i) => (r.frame = i + 1));
  if (stall) {
    const s = stall;
    const before = rows.filter((r) => r.dir === 0 && r.t <= s.start);
    s.frameBefore = before.length ? before[before.length - 1].frame ?? 0 : 0;
    s.frameAfter = rows.find((r) => r.dir === 0 && r.t >= s.start + s.duration)?.frame ?? 0;
  }
  // Without the handshake's scale the column holds the raw field; the fixture's lower
  // bound is 2^2, so store the window ÷ 4 (except on the SYN/ACK, never scaled).
  if (o.windowScaleUnknown) for (const r of rows) if (r.dir === 1 && r.win != null) r.win /= 4;
  const payload = rows.filter((r) => r.dir === 0).reduce((a, r) => a + (r.len ?? 0), 0);
  const data = connectionData({
    id: o.id,
    rows, sack, rtt: rttSamples, dataDirection: 0,
    directions: [
      { payloadBytes: payload, stalls: stall ? [stall] : [], rtt: { minMs: rtt * 1000, medianMs: rtt * 1000 } },
      o.windowScaleUnknown
        ? { windowScale: null, windowScaleUnknown: true, windowScaleLowerBound: 2 }
        : { receiveWindow: { min: 0, max: rwnd } },
    ],
  });
  data.summary.handshakeSeen = !o.windowScaleUnknown;
  return data;
}
