// Bandwidth-delay product arithmetic (DESIGN.md "The stories it must explain"; same
// formulas as wasm/src/analysis/bdp.rs). A window of W bytes lets at most W bytes
// travel per round trip, so it caps the rate at W / RTT; a link of rate R needs
// R × RTT bytes in flight to stay busy.
import type { ConnectionSummary } from './types';

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

export interface BdpSeed {
  /** Minimum RTT of the data direction, seconds (median if no minimum; null if no samples). */
  rttS: number | null;
  /** Largest window the receiver advertised, bytes. */
  windowBytes: number | null;
  /** Mean throughput of the data direction, bit/s. */
  rateBps: number;
  /** Peak throughput (per bin) of the data direction, bit/s: a first guess for the link rate. */
  peakBps: number;
}

/** The calculator's starting point, from the connection (data direction → its receiver's window). */
export function seedFromSummary(summary: ConnectionSummary): BdpSeed {
  const d = summary.dataDirection;
  const sender = summary.directions[d];
  const receiver = summary.directions[d === 0 ? 1 : 0];
  const ms = sender.rtt.minMs ?? sender.rtt.medianMs;
  return {
    rttS: ms != null && ms > 0 ? ms / 1000 : null,
    windowBytes: receiver.receiveWindow?.max ?? null,
    rateBps: sender.throughput.meanBps,
    peakBps: sender.throughput.peakBps,
  };
}
