// Bandwidth-delay product arithmetic (DESIGN.md "The stories it must explain"; same
// formulas as wasm/src/analysis/bdp.rs). A window of W bytes lets at most W bytes
// travel per round trip, so it caps the rate at W / RTT; a link of rate R needs
// R × RTT bytes in flight to stay busy.
import type { DiagnosisEvidence, Verdict } from './types';

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** Highest rate (bit/s) a window of `windowBytes` allows at round-trip time `rttS`. */
export function cap(windowBytes: number, rttS: number): number {
  return (windowBytes * 8) / rttS;
}

/** Bytes that must be in flight to keep a `rateBps` link busy at `rttS` (whole bytes). */
export function bdp(rateBps: number, rttS: number): number {
  return Math.round((rateBps * rttS) / 8);
}

/** What the flow can reach: the window cap, or the link rate if that is lower. */
export function attainable(windowBytes: number, rttS: number, linkBps?: number | null): number {
  const c = cap(windowBytes, rttS);
  return linkBps != null && linkBps > 0 ? Math.min(c, linkBps) : c;
}

/** Window sizes of the table: 32 KiB, 64 KiB, … 16 MiB (powers of two). */
export const WINDOW_SIZES: readonly number[] = Array.from({ length: 10 }, (_, i) => 32 * KiB * 2 ** i);

export interface WindowRow {
  windowBytes: number;
  /** window / RTT, bit/s. */
  capBps: number;
  /** min(cap, link rate), bit/s. */
  rateBps: number;
  /** Which one sets rateBps. */
  limitedBy: 'window' | 'link';
}

/** For each window size, the cap at this RTT and what the flow reaches on a link of `linkBps`. */
export function windowTable(rttS: number, linkBps?: number | null, sizes: readonly number[] = WINDOW_SIZES): WindowRow[] {
  return sizes.map((w) => {
    const c = cap(w, rttS);
    const linkLimits = linkBps != null && linkBps > 0 && linkBps < c;
    return { windowBytes: w, capBps: c, rateBps: linkLimits ? linkBps : c, limitedBy: linkLimits ? 'link' : 'window' };
  });
}

/** Smallest table size ≥ the BDP of `rateBps` at `rttS`: the window to recommend. Null if none fits. */
export function windowFor(rateBps: number, rttS: number, sizes: readonly number[] = WINDOW_SIZES): number | null {
  const need = bdp(rateBps, rttS);
  return sizes.find((w) => w >= need) ?? null;
}

/** What limits a flow on these inputs: the window when its cap is below the link rate, else the link. */
export function inputVerdict(windowBytes: number | null, rttS: number | null, linkBps: number | null): 'window' | 'link' | 'unknown' {
  if (windowBytes == null || rttS == null || linkBps == null || !(windowBytes > 0 && rttS > 0 && linkBps > 0)) return 'unknown';
  return cap(windowBytes, rttS) < linkBps ? 'window' : 'link';
}

/**
 * The calculator's starting point: exactly the numbers the diagnosis headline used
 * (`diagnosis.evidence`, docs/ANALYSIS.md), so the calculator cannot contradict
 * the headline (issue 13 item 6). Never the peak bin: one 100 ms bin is not a link rate.
 */
export interface BdpSeed {
  /** The path RTT (connection.pathRttMs) as reported, ms; null when none could be measured. */
  rttMs: number | null;
  /** The same in seconds. */
  rttS: number | null;
  /** Effective receive window, bytes: the inferred lower bound when the scale is unknown. */
  windowBytes: number | null;
  /** windowBytes is an inferred lower bound (window scale unknown). */
  windowInferred: boolean;
  /** The link rate the calculator starts from, bit/s: the diagnosis's bottleneck estimate, else the sustained rate. */
  linkBps: number | null;
  /** linkBps is the flow's sustained rate (the window hides the link's capacity), not a link estimate. */
  linkIsSustainedRate: boolean;
  /** Sustained rate (mean while active), bit/s. */
  rateBps: number | null;
  /** What the calculator says limits the flow while its inputs are the seed's. */
  verdict: Verdict;
}

/** The seed from the diagnosis's evidence; an empty seed (verdict unknown) when the report has none. */
export function seedFromEvidence(evidence: DiagnosisEvidence | null): BdpSeed {
  const pos = (v: number | null | undefined) => (v != null && Number.isFinite(v) && v > 0 ? v : null);
  if (!evidence) {
    return { rttMs: null, rttS: null, windowBytes: null, windowInferred: false, linkBps: null, linkIsSustainedRate: false, rateBps: null, verdict: 'unknown' };
  }
  const rttMs = pos(evidence.rttMs);
  const link = pos(evidence.linkRateBps);
  const rate = pos(evidence.rateBps);
  return {
    rttMs,
    rttS: rttMs != null ? rttMs / 1000 : null,
    windowBytes: pos(evidence.windowBytes),
    windowInferred: evidence.windowInferred,
    linkBps: link ?? rate,
    linkIsSustainedRate: link == null && rate != null,
    rateBps: rate,
    verdict: evidence.verdict,
  };
}
