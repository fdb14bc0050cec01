// The bandwidth-delay calculator's starting point, read from the diagnosis's evidence.
// Its arithmetic (caps, BDP, the table, the inputs' verdict) is Rust's only:
// wasm/src/analysis/rates/bdp.rs `calculate`, asked through the worker.
import type { DiagnosisEvidence, Verdict } from './types';

export const KiB = 1024;
export const MiB = 1024 * KiB;

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
