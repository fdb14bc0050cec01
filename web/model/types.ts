// The data contract between the wasm decoder (via the worker) and the UI. The report's
// types are GENERATED from the Rust structs (wasm/src/report.rs, wasm/src/analysis/mod.rs, share/build.rs;
// web/worker/generated/view.ts, checked by a cargo test); this file adds only what
// older snapshots lack (the "legacy" shapes below) and the per-packet columns that
// share snapshots still carry (removed by issue 15). Bump SCHEMA_VERSION with Rust's.
import type * as Gen from '../worker/generated/view';
import { outsideText } from '../security/outsideText';

export const SCHEMA_VERSION = 1;

/** Closed sets, as the analysis writes them (analysis/mod.rs LIMITS, VERDICTS, EPISODE_KINDS). */
export type { StallCause, Limit, Vantage, Verdict, EpisodeKind, Handshake, SynOptions, CaptureLoss, RtoChain } from '../worker/generated/view';
export type Stall = Gen.Stall;

/**
 * A direction as reported; snapshots written before issue 13 lack the newer fields
 * (senderLagMs is left out: the page does not read it).
 */
/** Retransmission kinds (issue 17; docs/ANALYSIS.md "Retransmission kinds") and their counts in segments: absent in older snapshots. */
type RetransmissionKinds =
  | 'rtoEvents' | 'rtoChains' | 'tailLossProbes' | 'slowStartRetransmissions'
  | 'retransmittedSegments' | 'fastRetransmittedSegments' | 'slowStartRetransmittedSegments';
/** ECN evidence (docs/ANALYSIS.md "ECN"): absent in older snapshots, null without ECN. */
type EcnFields = 'ecn';
/** Datagrams lost before the capture point by the sender's IPv4 numbering (docs/ANALYSIS.md `direction.unseenDatagrams`): absent in older snapshots. */
type NumberingFields = 'unseenDatagrams' | ReportedLossFields;
/** What the receiver's SACK blocks reported lost (docs/ANALYSIS.md `direction.lostAfterCapture`, `direction.unseenResends`): absent in older snapshots. */
type ReportedLossFields = 'lostAfterCapture' | 'unseenResends';
/**
 * Share links (snapshot format 4, wasm/src/share/build.rs) list only the stalls the
 * shared view shows: a direction whose list they shortened says here how many stalls
 * it had (`stalls` then holds fewer, or none). Absent everywhere else.
 * (Generated from build.rs `ListedStalls`, which writes it.)
 */
type LinkedStallCount = Pick<Gen.ListedStalls, 'stallCount'>;
/** `stallSeconds`: links made before the engine summed the stalls lack it. */
export type DirectionSummary = Omit<Gen.DirectionSummary, 'throughput' | 'rtt' | 'senderLagMs' | 'stallSeconds' | RetransmissionKinds | EcnFields | NumberingFields> &
  Partial<Pick<Gen.DirectionSummary, 'stallSeconds' | RetransmissionKinds | EcnFields | NumberingFields>> & LinkedStallCount & {
  throughput: ThroughputStats | LegacyThroughputStats;
  rtt: RttStats | LegacyRttStats;
};

/** A direction's number of stalls (the analysis's count; a link may list fewer: `stallCount`). */
export const stallCount = (d: Pick<DirectionSummary, 'stalls' | 'stallCount'>): number => d.stallCount ?? d.stalls.length;

// Issue 13 (docs/ANALYSIS.md) added fields to schema 1. Snapshots written before
// it (web/share) lack them, so each extended object is typed as "new | legacy": the
// legacy member is the old shape, and the keys both members share are exactly the old
// keys (what web/share/validate.ts checks). Read the new fields through the accessors
// at the end of this file (pathInfo, rttStats, activeMeanBps, evidenceOf, episodesOf,
// captureQuality), which narrow with `in` and say "not reported" as null.

/** Per-direction throughput (DESIGN.md "Throughput"; docs/ANALYSIS.md `throughput.*`). */
export type ThroughputStats = Gen.ThroughputSummary;
export type LegacyThroughputStats = Omit<ThroughputStats, 'activeMeanBps'>;

/** Per-direction RTT statistics over trusted samples only (docs/ANALYSIS.md `rtt.*`); offsetMs, offsetFollows, followedSamples, pathSamples and pathMedianMs are missing in older snapshots. */
export type RttStats = Omit<Gen.RttSummary, 'offsetMs' | 'offsetFollows' | 'followedSamples' | 'pathSamples' | 'pathMedianMs'> & {
  offsetMs?: number;
  offsetFollows?: boolean;
  followedSamples?: number;
  pathSamples?: number;
  pathMedianMs?: number | null;
};
export type LegacyRttStats = Pick<RttStats, 'minMs' | 'medianMs'>;

/** The numbers the headline used; the BDP calculator is seeded from exactly these. */
export type DiagnosisEvidence = Gen.Evidence;
/** A change of regime, named with its time span and cost. */
export type Episode = Gen.Episode;

export type LegacyDiagnosis = Pick<Gen.Diagnosis, 'limit' | 'text' | 'shares'>;
export type Diagnosis13 = Gen.Diagnosis;
export type Diagnosis = Diagnosis13 | LegacyDiagnosis;

/** Vantage point and the round trip everything derived uses (issue 13 item 1). */
export type PathInfo = Pick<Gen.ConnectionSummary, 'vantage' | 'pathRttMs' | 'pathRttMethod' | 'baseRttMs'>;

export type LegacyConnectionSummary = Pick<Gen.ConnectionSummary, 'id' | 'endpoints' | 'handshakeSeen' | 'packets' | 'start' | 'end'> & {
  /** 0: endpoints[0] sends the data (the generated type says number). */
  dataDirection: 0 | 1;
  /** The range the charts open on (wasm analysis/run/opening_view.rs; docs/ANALYSIS.md `connection.dataView`); null or missing = the whole connection (older snapshots lack it). */
  dataView?: [number, number] | null;
  /** Threshold the decoder found the stalls with (user's, or max(10 ms, 4 × min RTT)); older snapshots lack it. */
  stallThresholdMs?: number;
  /** Issue 17 (handshake.rs, capture_loss.rs); older snapshots lack them. */
  handshake?: Gen.Handshake;
  captureLoss?: Gen.CaptureLoss;
  directions: [DirectionSummary, DirectionSummary];
  diagnosis: Diagnosis;
  /** The process behind the connection (Apple PKTAP / pcapng process blocks; docs/ANALYSIS.md "connection.process"); older snapshots lack it. */
  process?: ProcessInfo | null;
  /** How the connection ended (wasm analysis/track/ending.rs; docs/ANALYSIS.md "How the connection ended"); share links and older snapshots lack it. */
  ending?: Gen.Ending;
  /** `connection.mptcp`: the report's `mptcp[].id` this connection is a subflow of (analysis/track/mptcp.rs); absent for plain TCP. */
  mptcp?: number;
};
export type ProcessInfo = Gen.Process;
/** "Safari (pid 512)", as the table and the connection header show a process. */
// The name passes the one sanitizer (idempotent: the client has sanitized it already).
export const processLabel = (p: ProcessInfo) => `${outsideText(p.name, 60) || 'unnamed'} (pid ${outsideText(p.pid, 12)})`;
export type ConnectionSummary = (LegacyConnectionSummary & PathInfo) | LegacyConnectionSummary;

export interface LegacyCaptureInfo { format: 'pcap' | 'pcapng' | null; linkTypes: string[]; packets: number; bytes: number; duration: number }
/** What the capture set-up did to the packets (issue 13 items 2 and 3). */
export type CaptureQuality = Pick<Gen.CaptureSummary, 'duplicateFrames' | 'wifiRetries' | 'timestampResolutionMs'>;
export type CaptureInfo = (LegacyCaptureInfo & CaptureQuality) | LegacyCaptureInfo;

export interface Report {
  schemaVersion: number;
  capture: CaptureInfo;
  /** layer and kind are missing in older snapshots. */
  error: null | (Omit<Gen.ErrorSummary, 'layer' | 'kind'> & Partial<Pick<Gen.ErrorSummary, 'layer' | 'kind'>>);
  warnings: Gen.Warning[];
  /** The warnings' packets summed by where the page tells them (wasm report.rs `WarningTotals`); older links lack it. */
  warningTotals?: Gen.WarningTotals;
  /** MPTCP connections with their subflows (analysis/track/mptcp.rs); absent without MPTCP and in share links. */
  mptcp?: MptcpConnection[];
  connections: ConnectionSummary[];
}

export type MptcpConnection = Gen.MptcpConnection;

/** The MPTCP connection a subflow belongs to (`connection.mptcp` → `mptcp[]`), or null. */
export function mptcpOf(report: Pick<Report, 'mptcp'>, s: ConnectionSummary): MptcpConnection | null {
  if (s.mptcp == null) return null;
  return report.mptcp?.find((m) => m.id === s.mptcp) ?? null;
}

/** The arrays of a group of the session's columns (`packets.*`, `sack.*`, `rtt.*`), typed
 *  by the one vocabulary's COLUMNS (generated from wasm/src/boundary/columns.rs, where each
 *  column is described): no field list is kept here. */
type ElementArray = { f64: Float64Array; u32: Uint32Array; u8: Uint8Array };
type ColumnGroup<G extends string> = {
  [K in keyof typeof COLUMNS as K extends `${G}.${infer F}` ? F : never]: ElementArray[(typeof COLUMNS)[K]];
};

/** One row per packet of the connection (both directions, capture order). NaN = no value;
 *  `flags`: TCP flags (low 8 bits) | FLAG.* analysis bits. */
export type PacketColumns = ColumnGroup<'packets'>;
export type SackColumns = ColumnGroup<'sack'>;
export type RttColumns = ColumnGroup<'rtt'>;

/** Everything the charts of one connection need. */
export interface ConnectionData {
  schemaVersion: number;
  summary: ConnectionSummary;
  packets: PacketColumns;
  sack: SackColumns;
  rtt: RttColumns;
}

/** Bit values of PacketColumns.flags: the one vocabulary's (wasm/src/boundary/flags.rs,
 *  from analysis/columns.rs `flag_bits`). */
export { FLAG } from '../worker/generated/vocabulary';
import type { COLUMNS } from '../worker/generated/vocabulary';

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

/** How the connection ended, or null when the report does not say (a share link, an older snapshot). */
export function endingOf(s: ConnectionSummary): Gen.Ending | null {
  return s.ending ?? null;
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
