// Bandwidth-delay product calculator (DESIGN.md "Limit diagnosis": "a bandwidth-delay
// product calculator seeded from the flow (RTT, window, rate; change any one)").
// Seeded from the connection: min RTT and measured rate of the data direction, the
// largest window its receiver advertised; the link rate starts at the flow's peak
// rate. Change any input to see the cap (window / RTT), the BDP of the link and the
// window needed; the table lists 32 KiB … 16 MiB against the cap at this RTT.
import { useId, useState } from 'react';
import type { ConnectionSummary } from '../model/types';
import { KiB, attainable, bdp, cap, seedFromSummary, windowFor, windowTable } from '../model/bdp';
import { formatBitrate, formatBytes, formatDuration } from '../model/format';

export interface BdpCalculatorProps {
  summary: ConnectionSummary;
}

/** Parse a user-typed positive number; null when empty or invalid. */
function positive(text: string): number | null {
  const v = Number(text.replace(',', '.'));
  return text.trim() !== '' && Number.isFinite(v) && v > 0 ? v : null;
}

/** Trim float noise for an input's initial value: 2.8000000001 → "2.8". */
function seedText(v: number | null, digits = 3): string {
  return v == null || !Number.isFinite(v) || v <= 0 ? '' : String(Number(v.toPrecision(digits + 1)));
}

export function BdpCalculator({ summary }: BdpCalculatorProps) {
  const seed = seedFromSummary(summary);
  const id = useId();
  const [rttMs, setRttMs] = useState(seedText(seed.rttS != null ? seed.rttS * 1000 : null));
  const [windowKiB, setWindowKiB] = useState(seedText(seed.windowBytes != null ? seed.windowBytes / KiB : null, 4));
  const [linkMbps, setLinkMbps] = useState(seedText(Math.max(seed.peakBps, seed.rateBps) / 1e6));

  const rttS = positive(rttMs) != null ? positive(rttMs)! / 1000 : null;
  const windowBytes = positive(windowKiB) != null ? positive(windowKiB)! * KiB : null;
  const linkBps = positive(linkMbps) != null ? positive(linkMbps)! * 1e6 : null;
  const ready = rttS != null;

  const field = (label: string, unit: string, value: string, set: (v: string) => void, name: string, hint?: string) => (
    <label htmlFor={`${id}-${name}`} style={{ display: 'grid', gap: 2 }}>
      <span>{label}</span>
      <span>
        <input
          id={`${id}-${name}`}
          name={name}
          type="number"
          inputMode="decimal"
          min="0"
          step="any"
          value={value}
          onChange={(e) => set(e.target.value)}
          style={{ width: '8em' }}
        />{' '}
        {unit}
      </span>
      {hint && <small className="muted">{hint}</small>}
    </label>
  );

  return (
    <section className="bdp-calculator" data-testid="bdp-calculator" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Bandwidth-delay product</h2>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16 }}>
        {field('Round-trip time', 'ms', rttMs, setRttMs, 'rtt', seed.rttS != null ? `flow's minimum: ${formatDuration(seed.rttS)}` : 'no RTT samples in the capture')}
        {field('Receive window', 'KiB', windowKiB, setWindowKiB, 'window', seed.windowBytes != null ? `largest advertised: ${formatBytes(seed.windowBytes)}` : undefined)}
        {field('Link rate', 'Mbit/s', linkMbps, setLinkMbps, 'link', `flow averaged ${formatBitrate(seed.rateBps)}, peak ${formatBitrate(seed.peakBps)}`)}
      </div>
      {ready ? (
        <ul className="bdp-results" data-testid="bdp-results">
          {windowBytes != null && (
            <li data-testid="bdp-cap">
              A {formatBytes(windowBytes)} window at {formatDuration(rttS)} caps throughput at{' '}
              <strong>{formatBitrate(cap(windowBytes, rttS))}</strong>
              {linkBps != null && (
                <>
                  ; on a {formatBitrate(linkBps)} link the flow can reach {formatBitrate(attainable(windowBytes, rttS, linkBps))}
                  {cap(windowBytes, rttS) < linkBps ? ' (the window is the limit)' : ' (the link is the limit)'}
                </>
              )}
              .
            </li>
          )}
          {linkBps != null && (
            <li data-testid="bdp-need">
              Bandwidth-delay product: {formatBitrate(linkBps)} × {formatDuration(rttS)} ={' '}
              <strong>{bdp(linkBps, rttS).toLocaleString('en-US')} bytes</strong> ({formatBytes(bdp(linkBps, rttS))}); the smallest
              window of the table that fills the link is {windowFor(linkBps, rttS) != null ? formatBytes(windowFor(linkBps, rttS)!) : 'more than 16 MiB'}.
            </li>
          )}
        </ul>
      ) : (
        <p className="muted">Enter a round-trip time to compute the caps.</p>
      )}
      {ready && (
        <div className="table-wrap">
          <table data-testid="bdp-table">
            <caption>Throughput cap of each window at {formatDuration(rttS)}</caption>
            <thead>
              <tr>
                <th scope="col">Window</th>
                <th scope="col">Cap (window / RTT)</th>
                {linkBps != null && <th scope="col">On this link</th>}
              </tr>
            </thead>
            <tbody>
              {windowTable(rttS, linkBps).map((r) => (
                <tr
                  key={r.windowBytes}
                  className={windowBytes != null && r.windowBytes === nearestSize(windowBytes) ? 'selected' : undefined}
                >
                  <td>{formatBytes(r.windowBytes)}</td>
                  <td className="num">{formatBitrate(r.capBps)}</td>
                  {linkBps != null && (
                    <td className="num">{r.limitedBy === 'link' ? `${formatBitrate(r.rateBps)} (full rate)` : formatBitrate(r.rateBps)}</td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The table size the current window rounds up to (64 KiB − 1 → 64 KiB), for highlighting. */
function nearestSize(windowBytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(windowBytes, 32 * KiB)));
}

export default BdpCalculator;
