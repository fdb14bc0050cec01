// Bandwidth-delay product calculator (DESIGN.md "Limit diagnosis": "a bandwidth-delay
// product calculator seeded from the flow (RTT, window, rate; change any one)").
// Seeded only from the numbers the diagnosis headline used (`diagnosis.evidence`,
// issue 13 item 6): the path RTT, the effective window (the inferred lower bound when
// the window scale is unknown) and the diagnosis's link estimate, else the sustained
// rate — never the peak bin. While the inputs are the seed's, the verdict line is the
// diagnosis's own verdict, so the calculator cannot contradict the headline; once an
// input is changed, the verdict is recomputed from the inputs (window cap vs link rate).
// The table lists 32 KiB … 16 MiB against the cap at this RTT. Every number and the
// inputs' verdict come from the one Rust function (analysis/rates/bdp.rs `calculate`, through
// the worker); this file only parses the inputs and formats the answer.
import { useEffect, useId, useState, memo } from 'react';
import type { ConnectionSummary, Verdict } from '../model/types';
import { evidenceOf } from '../model/types';
import { KiB, seedFromEvidence } from '../model/bdp';
import { formatBitrate, formatBytes, formatDuration } from '../model/format.mjs';
import type { BdpAnswer, BdpQuestion } from '../worker/generated/view';
import { ScrollRegion } from './ScrollRegion';
import { VERDICT_TEXT } from '../worker/generated/vocabulary';

/** Asks analysis/rates/bdp.rs `calculate` (the worker; tests call the wasm directly). */
export type BdpCalculate = (q: BdpQuestion) => BdpAnswer | Promise<BdpAnswer>;

export interface BdpCalculatorProps {
  summary: ConnectionSummary;
  calculate: BdpCalculate;
}

/** The engine's answer to the current inputs; null until it is here. */
function useBdpAnswer(calculate: BdpCalculate, q: BdpQuestion): BdpAnswer | null {
  const key = JSON.stringify(q);
  const [answer, setAnswer] = useState<{ key: string; answer: BdpAnswer } | null>(null);
  useEffect(() => {
    let current = true;
    const got = calculate(JSON.parse(key) as BdpQuestion);
    if (got instanceof Promise) got.then((a) => current && setAnswer({ key, answer: a }), () => undefined);
    else setAnswer({ key, answer: got });
    return () => { current = false; };
  }, [calculate, key]);
  return answer?.key === key ? answer.answer : null;
}

/** The verdict in words (VERDICT_TEXT, wasm/src/boundary/words.rs); the same limit the headline names. */
export { VERDICT_TEXT };

/** Parse a user-typed positive number; null when empty or invalid. */
function positive(text: string): number | null {
  const v = Number(text.replace(',', '.'));
  return text.trim() !== '' && Number.isFinite(v) && v > 0 ? v : null;
}

/** Trim float noise for an input's initial value: 2.8000000001 → "2.8". */
export function seedText(v: number | null, digits = 3): string {
  return v == null || !Number.isFinite(v) || v <= 0 ? '' : String(Number(v.toPrecision(digits + 1)));
}

// Memoised: a zoom or pan gesture re-renders the app every frame and this does not change with the range.
export const BdpCalculator = memo(function BdpCalculator({ summary, calculate }: BdpCalculatorProps) {
  const seed = seedFromEvidence(evidenceOf(summary.diagnosis));
  const id = useId();
  const seeded = {
    rtt: seedText(seed.rttMs),
    window: seedText(seed.windowBytes != null ? seed.windowBytes / KiB : null, 4),
    link: seedText(seed.linkBps != null ? seed.linkBps / 1e6 : null),
  };
  const [rttMs, setRttMs] = useState(seeded.rtt);
  const [windowKiB, setWindowKiB] = useState(seeded.window);
  const [linkMbps, setLinkMbps] = useState(seeded.link);

  const rttS = positive(rttMs) != null ? positive(rttMs)! / 1000 : null;
  const windowBytes = positive(windowKiB) != null ? positive(windowKiB)! * KiB : null;
  const linkBps = positive(linkMbps) != null ? positive(linkMbps)! * 1e6 : null;
  const answer = useBdpAnswer(calculate, {
    ...(rttS != null ? { rttMs: rttS * 1000 } : {}), ...(windowBytes != null ? { windowBytes } : {}), ...(linkBps != null ? { linkBps } : {}),
  });
  const ready = rttS != null && answer != null;
  // Untouched (or typed back to the seed): the diagnosis's verdict; else the inputs'.
  const untouched = rttMs === seeded.rtt && windowKiB === seeded.window && linkMbps === seeded.link;
  const verdict: Verdict = untouched ? seed.verdict : answer?.verdict ?? 'unknown';

  const field = (label: string, unit: string, value: string, set: (v: string) => void, name: string, hint?: string) => (
    <label htmlFor={`${id}-${name}`} style={{ display: 'grid', gap: 2 }}>
      <span>{label}</span>
      <span>
        <input
          id={`${id}-${name}`}
          name={name}
          data-testid={`bdp-${name}`}
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
      {hint && <small className="muted" data-testid={`bdp-${name}-hint`}>{hint}</small>}
    </label>
  );

  const rttHint = seed.rttS != null ? `the path RTT the diagnosis used: ${formatDuration(seed.rttS)}` : 'no path RTT could be measured';
  const windowHint = seed.windowBytes == null
    ? 'no receive window was seen'
    : seed.windowInferred
      ? `inferred ≥ ${formatBytes(seed.windowBytes)} (window scale unknown)`
      : `largest advertised: ${formatBytes(seed.windowBytes)}`;
  const linkHint = seed.linkBps == null
    ? 'no rate was measured'
    : seed.linkIsSustainedRate
      ? `sustained rate (the window hides the link's capacity): ${formatBitrate(seed.linkBps)}`
      : `the link rate the diagnosis estimated: ${formatBitrate(seed.linkBps)}`;

  return (
    <section
      className="bdp-calculator"
      data-testid="bdp-calculator"
      aria-labelledby={`${id}-title`}
      data-seed-rtt-ms={seed.rttMs ?? undefined}
      data-seed-window-bytes={seed.windowBytes ?? undefined}
      data-seed-link-bps={seed.linkBps ?? undefined}
    >
      <h2 id={`${id}-title`}>Bandwidth-delay product</h2>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16 }}>
        {field('Round-trip time', 'ms', rttMs, setRttMs, 'rtt', rttHint)}
        {field('Receive window', 'KiB', windowKiB, setWindowKiB, 'window', windowHint)}
        {field(seed.linkIsSustainedRate ? 'Link rate (at least)' : 'Link rate', 'Mbit/s', linkMbps, setLinkMbps, 'link', linkHint)}
      </div>
      <p className="bdp-verdict" data-testid="bdp-verdict" data-verdict={verdict} data-source={untouched ? 'diagnosis' : 'inputs'}>
        {untouched ? 'As the diagnosis found: ' : 'With these inputs: '}
        <strong>{VERDICT_TEXT[verdict]}</strong>.
      </p>
      {ready ? (
        <ul className="bdp-results" data-testid="bdp-results">
          {windowBytes != null && answer.capBps != null && (
            <li data-testid="bdp-cap">
              A {formatBytes(windowBytes)} window at {formatDuration(rttS)} caps throughput at{' '}
              <strong>{formatBitrate(answer.capBps)}</strong>
              {linkBps != null && answer.attainableBps != null && (
                <>
                  ; on a {formatBitrate(linkBps)} link the flow can reach {formatBitrate(answer.attainableBps)}
                </>
              )}
              .
            </li>
          )}
          {linkBps != null && answer.needBytes != null && (
            <li data-testid="bdp-need">
              Bandwidth-delay product: {formatBitrate(linkBps)} × {formatDuration(rttS)} ={' '}
              <strong>{answer.needBytes.toLocaleString('en-US')} bytes</strong> ({formatBytes(answer.needBytes)}); the smallest
              window of the table that fills the link is {answer.windowForLink != null ? formatBytes(answer.windowForLink) : 'more than 16 MiB'}.
            </li>
          )}
        </ul>
      ) : rttS == null ? (
        <p className="muted" data-testid="bdp-no-rtt">
          {seed.rttS == null && rttMs === seeded.rtt ? 'No path RTT could be measured: enter' : 'Enter'} a round-trip time to compute the caps.
        </p>
      ) : null}
      {ready && (
        <ScrollRegion label="Throughput cap of each window">
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
              {answer.table.map((r) => (
                <tr key={r.windowBytes} className={r.selected ? 'selected' : undefined}>
                  <td>{formatBytes(r.windowBytes)}</td>
                  <td className="num">{formatBitrate(r.capBps)}</td>
                  {linkBps != null && (
                    <td className="num">{r.linkLimited ? `${formatBitrate(r.rateBps)} (full rate)` : formatBitrate(r.rateBps)}</td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
});

export default BdpCalculator;
