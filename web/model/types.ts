// The data contract between the wasm decoder (via the worker) and the UI.
// Mirrors wasm/src/report.rs (JSON summary, schema 1) and wasm/src/analysis/columns.rs
// (per-connection columns). Bump SCHEMA_VERSION with the Rust constant.

export const SCHEMA_VERSION = 1;

export type StallCause =
  | 'zero-window' | 'window-limited' | 'retransmission-timeout'
  | 'application-idle' | 'ack-wait' | 'unknown';

export type Limit =
  | 'receive-window' | 'zero-window' | 'loss' | 'application' | 'stalls' | 'path' | 'too-short';

export interface Stall {
  start: number;      // s since first packet of the file
  duration: number;   // s
  cause: StallCause;
  frameBefore: number;
  frameAfter: number;
  endedBy: string;
}

export interface DirectionSummary {
  from: string; to: string;
  packets: number; payloadBytes: number; bytes: number;
  windowScale: number | null; windowScaleUnknown: boolean; windowScaleLowerBound: number | null;
  receiveWindow: { min: number; max: number } | null;
  maxBytesInFlight: number | null;
  retransmissions: number; fastRetransmissions: number; spuriousRetransmissions: number;
  duplicateAcks: number; zeroWindows: number; zeroWindowProbes: number; windowFull: number;
  keepAlives: number; lostSegments: number; outOfOrder: number;
  throughput: { meanBps: number; peakBps: number; binSeconds: number };
  rtt: { minMs: number | null; medianMs: number | null };
  stalls: Stall[];
}

export interface Diagnosis {
  limit: Limit;
  text: string;
  shares: { receiveWindow: number; loss: number; application: number; stalled: number; other: number };
}

export interface ConnectionSummary {
  id: number;
  endpoints: [string, string];
  handshakeSeen: boolean;
  packets: number;
  start: number; end: number;
  dataDirection: 0 | 1;
  /** Threshold the decoder found the stalls with (user's, or max(10 ms, 4 × min RTT)). */
  stallThresholdMs?: number;
  directions: [DirectionSummary, DirectionSummary];
  diagnosis: Diagnosis;
}

export interface Report {
  schemaVersion: number;
  capture: { format: 'pcap' | 'pcapng' | null; linkTypes: string[]; packets: number; bytes: number; duration: number };
  error: null | { message: string; packetIndex: number | null; byteOffset: number | null; layer?: string; kind?: string };
  warnings: { kind: string; count: number; message: string }[];
  connections: ConnectionSummary[];
}

/** One row per packet of the connection (both directions, capture order). NaN = no value. */
export interface PacketColumns {
  t: Float64Array;        // s since first packet of the file
  dir: Uint8Array;        // 0: endpoints[0]→endpoints[1]; 1: reverse
  frame: Uint32Array;     // 1-based frame number
  seq: Float64Array;      // relative sequence number of first payload byte
  len: Uint32Array;       // payload bytes
  wireLen: Uint32Array;   // frame bytes on the wire
  ack: Float64Array;      // relative cumulative ACK, NaN without ACK flag
  win: Float64Array;      // advertised window of this packet's sender (scaled when known)
  inFlight: Float64Array; // bytes in flight at data segments, NaN otherwise
  flags: Uint32Array;     // TCP flags (low 8 bits) | FLAG.* analysis bits
}

export interface SackColumns { t: Float64Array; dir: Uint8Array; left: Float64Array; right: Float64Array }
export interface RttColumns { t: Float64Array; dir: Uint8Array; rttMs: Float64Array; kind: Uint8Array }

/** Everything the charts of one connection need. */
export interface ConnectionData {
  schemaVersion: number;
  summary: ConnectionSummary;
  packets: PacketColumns;
  sack: SackColumns;
  rtt: RttColumns;
}

/** Bit values of PacketColumns.flags (wasm/src/analysis/columns.rs `flag_bits`). */
export const FLAG = {
  FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10, URG: 0x20, ECE: 0x40, CWR: 0x80,
  RETRANSMISSION: 1 << 8,
  FAST_RETRANSMISSION: 1 << 9,
  SPURIOUS_RETRANSMISSION: 1 << 10,
  DUPLICATE_ACK: 1 << 11,
  ZERO_WINDOW: 1 << 12,
  ZERO_WINDOW_PROBE: 1 << 13,
  WINDOW_FULL: 1 << 14,
  KEEP_ALIVE: 1 << 15,
  LOST_SEGMENT: 1 << 16,
  OUT_OF_ORDER: 1 << 17,
  WINDOW_UPDATE: 1 << 18,
  ZERO_WINDOW_PROBE_ACK: 1 << 19,
  KEEP_ALIVE_ACK: 1 << 20,
  ACK_LOST_SEGMENT: 1 << 21,
} as const;
