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
  throughput: ThroughputStats | LegacyThroughputStats;
  rtt: RttStats | LegacyRttStats;
  stalls: Stall[];
}

// Issue 13 (docs/ANALYSIS.md) added fields to schema 1. Snapshots written before
// it (web/share) lack them, so each extended object is typed as "new | legacy": the
// legacy member is the old shape, and the keys both members share are exactly the old
// keys (what web/share/validate.ts checks). Read the new fields through the accessors
// at the end of this file (pathInfo, rttStats, activeMeanBps, evidenceOf, episodesOf,
// captureQuality), which narrow with `in` and say "not reported" as null.

/** Per-direction throughput (DESIGN.md "Throughput"). */
export interface ThroughputStats {
  /** Payload bits / the connection's duration: "mean over the connection's duration". */
  meanBps: number;
  /** Payload bits / the direction's active time (first to last data segment, application pauses excluded): "mean while active". */
  activeMeanBps: number;
  /** Largest bin; ≥ meanBps by construction (a transfer shorter than one bin: the mean). */
  peakBps: number;
  /** Bin size, follows the connection's length (≤ 100 ms), never below the clock resolution. */
  binSeconds: number;
}
export type LegacyThroughputStats = Omit<ThroughputStats, 'activeMeanBps'>;

/** Per-direction RTT statistics over trusted samples only (DESIGN.md "RTT samples"). */
export interface RttStats {
  minMs: number | null;
  medianMs: number | null;
  p95Ms: number | null;
  maxMs: number | null;
  /** Trusted samples. */
  samples: number;
  /** Timestamp samples spanning idle/recovery/persist (RFC 7323 §4.3), below the clock resolution, etc. */
  excludedSamples: number;
  /**
   * Added to each measured part to make a full round trip, ms: the smallest measured
   * other half (capture point → this direction's sender → capture point), so a
   * receiver-side capture does not report its local ACK delay as the RTT
   * (wasm/src/analysis/mod.rs RttSummary; docs/ANALYSIS.md `rtt.offsetMs`).
   */
  offsetMs?: number;
}
export type LegacyRttStats = Pick<RttStats, 'minMs' | 'medianMs'>;

/** Where the capture was taken relative to the data sender. */
export type Vantage = 'sender' | 'receiver' | 'middle' | 'unknown';

/** What the calculator must say limits the flow with the evidence's inputs. */
export type Verdict = 'window' | 'link' | 'loss' | 'application' | 'stalls' | 'unknown';

/** The numbers the headline used; the BDP calculator is seeded from exactly these. */
export interface DiagnosisEvidence {
  /** = connection.pathRttMs. */
  rttMs: number | null;
  /** Effective receive window: largest advertised, scaled; the inferred lower bound when the scale is unknown. */
  windowBytes: number | null;
  /** windowBytes came from an inferred scale lower bound. */
  windowInferred: boolean;
  /** Sustained rate (mean while active), never a single peak bin. */
  rateBps: number | null;
  /** windowBytes × 8 / (rttMs / 1000). */
  capBps: number | null;
  /** Bottleneck estimate when the diagnosis knows it; null when the window hides the link. */
  linkRateBps: number | null;
  verdict: Verdict;
}

export type EpisodeKind = 'loss' | 'delay-spike' | 'outage' | 'zero-window' | 'latency';

/** A change of regime, named with its time span and cost. */
export interface Episode {
  /** s since the first packet of the file. */
  start: number;
  end: number;
  kind: EpisodeKind;
  text: string;
}

export interface LegacyDiagnosis {
  limit: Limit;
  text: string;
  /** Partition the time; sum to 1. */
  shares: { receiveWindow: number; loss: number; application: number; stalled: number; other: number };
}
export interface Diagnosis13 extends LegacyDiagnosis {
  evidence: DiagnosisEvidence;
  episodes: Episode[];
}
export type Diagnosis = Diagnosis13 | LegacyDiagnosis;

/** Vantage point and the round trip everything derived uses (issue 13 item 1). */
export interface PathInfo {
  /** Where the capture was taken relative to the DATA sender. */
  vantage: Vantage;
  /** The round trip the diagnosis, stall threshold, BDP and calculator use. */
  pathRttMs: number | null;
  /** How pathRttMs was obtained, in words, e.g. "handshake (SYN→SYN/ACK 24.9 ms + SYN/ACK→ACK 0.1 ms)". */
  pathRttMethod: string;
  /** Smallest path RTT seen on the same host pair in the capture (latency under load is measured against it). */
  baseRttMs: number | null;
}

export interface LegacyConnectionSummary {
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
  /** The process behind the connection (Apple PKTAP / pcapng process blocks; docs/ANALYSIS.md "connection.process"). */
  process?: ProcessInfo | null;
}
export interface ProcessInfo { name: string; pid: number }
/** "Safari (pid 512)", as the table and the connection header show a process. */
export const processLabel = (p: ProcessInfo) => `${p.name || 'unnamed'} (pid ${p.pid})`;
export type ConnectionSummary = (LegacyConnectionSummary & PathInfo) | LegacyConnectionSummary;

export interface LegacyCaptureInfo { format: 'pcap' | 'pcapng' | null; linkTypes: string[]; packets: number; bytes: number; duration: number }
/** What the capture set-up did to the packets (issue 13 items 2 and 3). */
export interface CaptureQuality {
  /** Frames dropped as capture duplicates (-i any copies, 802.11 MAC retries). */
  duplicateFrames: number;
  /** Of those, 802.11 MAC-layer retries (retry bit + repeated 802.11 sequence number). */
  wifiRetries: number;
  /** Detected capture clock tick in ms (0.001 for µs clocks, 10 for a 10 ms clock); null = cannot tell. */
  timestampResolutionMs: number | null;
}
export type CaptureInfo = (LegacyCaptureInfo & CaptureQuality) | LegacyCaptureInfo;

export interface Report {
  schemaVersion: number;
  capture: CaptureInfo;
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

// Accessors for the issue-13 fields: null / [] when the report predates them.

export function pathInfo(s: ConnectionSummary): PathInfo | null {
  return 'vantage' in s ? { vantage: s.vantage, pathRttMs: s.pathRttMs, pathRttMethod: s.pathRttMethod, baseRttMs: s.baseRttMs } : null;
}

/** RTT statistics; p95/max and the sample counts are null when not reported. */
export function rttStats(r: DirectionSummary['rtt']): Omit<RttStats, 'samples' | 'excludedSamples'> & { samples: number | null; excludedSamples: number | null } {
  return 'p95Ms' in r ? r : { ...r, p95Ms: null, maxMs: null, samples: null, excludedSamples: null };
}

/** "Mean while active", or null when not reported. */
export function activeMeanBps(t: DirectionSummary['throughput']): number | null {
  return 'activeMeanBps' in t ? t.activeMeanBps : null;
}

export function evidenceOf(d: Diagnosis): DiagnosisEvidence | null {
  return 'evidence' in d ? d.evidence : null;
}

export function episodesOf(d: Diagnosis): Episode[] {
  return 'episodes' in d ? d.episodes : [];
}

export function captureQuality(c: CaptureInfo): CaptureQuality | null {
  return 'duplicateFrames' in c ? c : null;
}
