// "Why was it slow?" — the diagnosis of one connection (DESIGN.md "Limit diagnosis"):
// the headline limit, the text with its numbers (written by wasm/src/analysis/verdict/diagnosis.rs),
// where the time went as one stacked bar (T-RAT / RFC 4898 SndLim shares), and the
// stall table (DESIGN.md "Stall"): cause, start, duration, what ended it.
// Issue 13: the episodes (changes of regime) under the headline, where the capture was
// taken and the path RTT everything derived uses, latency under load against the path's
// base RTT, the RTT statistics and each mean rate with its name. The numbers the
// headline used (diagnosis.evidence) are also data attributes of the panel, so a test
// can check that the BDP calculator starts from the same ones.
import { memo } from 'react';
import type { ConnectionSummary, Diagnosis, EpisodeKind, Limit, MptcpConnection, PathInfo, Stall, StallCause, Vantage } from '../model/types';
import { activeMeanBps, episodesOf, evidenceOf, pathInfo, rttStats, stallCount } from '../model/types';
import { formatBitrate, formatDuration, formatMs, formatPercent, formatTimestamp } from '../model/format.mjs';
import { ScrollRegion } from './ScrollRegion';
import { EPISODE_LABEL, LIMIT_LABEL, LIMITS_WITHOUT_SHARES, STALL_CAUSE_LABEL as CAUSE_LABEL, VANTAGE_LABEL, VANTAGE_NOTE } from '../worker/generated/vocabulary';

export interface DiagnosisPanelProps {
  summary: ConnectionSummary;
  /** Stalls to list instead of the data direction's (e.g. after changing the threshold). */
  stalls?: Stall[];
  /** Called when a stall row or an episode is chosen (e.g. to zoom the charts onto it). */
  onSelectStall?: (start: number, duration: number) => void;
  /** Id of the heading (default `diagnosis-<id>`; two panels of one page need two). */
  headingId?: string;
  /** The MPTCP connection this connection is a subflow of (report `mptcp[]`): its sentences are shown. */
  mptcp?: MptcpConnection | null;
}

// Limits, causes, episode kinds, vantages and their words: the one vocabulary
// (wasm/src/boundary/words.rs), the same strings as the chart legends, the share view
// and the CLI.

type ShareKey = keyof Diagnosis['shares'];

/** Segments of the shares bar, in drawing order, with Okabe–Ito colours (colour-blind safe). */
export const SHARES: { key: ShareKey; label: string; color: string }[] = [
  { key: 'receiveWindow', label: 'receive window', color: '#0072b2' },
  { key: 'loss', label: 'loss recovery', color: '#d55e00' },
  { key: 'application', label: 'application', color: '#009e73' },
  { key: 'stalled', label: 'stalled', color: '#cc79a7' },
  // Request/response round trips (wasm diagnosis_shares.rs "turns"); links made before it lack it.
  { key: 'turns', label: 'request/response turns', color: '#56b4e9' },
  { key: 'other', label: 'other (cwnd/path)', color: '#999999' },
];

function SharesBar({ shares: given }: { shares: Diagnosis['shares'] }) {
  const shares = { ...given, turns: given.turns ?? 0 };
  // Turns are named only where there were some (most connections have none).
  const named = SHARES.filter((s) => s.key !== 'turns' || shares.turns > 0);
  const parts = SHARES.filter((s) => shares[s.key] > 0);
  const describe = named.map((s) => `${s.label} ${formatPercent(shares[s.key])}`).join(', ');
  return (
    <figure className="diagnosis-shares" style={{ margin: '8px 0' }}>
      <div
        role="img"
        aria-label={`Where the time went: ${describe}`}
        data-testid="diagnosis-shares"
        style={{ display: 'flex', height: 14, borderRadius: 4, overflow: 'hidden', border: '1px solid var(--border)' }}
      >
        {parts.map((s) => (
          <span
            key={s.key}
            data-share={s.key}
            title={`${s.label}: ${formatPercent(shares[s.key])}`}
            style={{ width: `${shares[s.key] * 100}%`, background: s.color }}
          />
        ))}
      </div>
      <figcaption className="muted" style={{ display: 'flex', flexWrap: 'wrap', gap: '4px 14px', fontSize: '0.85em', marginTop: 4 }}>
        {named.map((s) => (
          <span key={s.key}>
            <span aria-hidden="true" style={{ display: 'inline-block', width: 10, height: 10, background: s.color, marginRight: 4 }} />
            {s.label} {formatPercent(shares[s.key])}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Rows drawn at most; a capture can hold thousands of stalls (the charts show all). */
export const MAX_STALL_ROWS = 500;

/**
 * What a share link left out of the list (wasm/src/share/build.rs: it lists the stalls
 * that overlap the shared view, or none, when the whole list would not fit beside the
 * charts at full resolution); `count` is the direction's number of stalls.
 */
function NotInLink({ listed, count }: { listed: number; count: number }) {
  return (
    <p className="muted" data-testid="stalls-not-in-link">
      {listed > 0
        ? `This link lists the ${listed} of the ${count} stalls that overlap the shared view; open the capture for the others.`
        : `This link lists none of the ${count} stalls of this direction; open the capture for the list.`}
    </p>
  );
}

/** `count`, `totalSeconds`: the direction's number of stalls and the time they took
 *  (the engine's `stallSeconds`), which a link's shortened list does not hold whole. */
function StallTable({ stalls, count = stalls.length, totalSeconds, onSelect }: { stalls: Stall[]; count?: number; totalSeconds?: number; onSelect?: (start: number, duration: number) => void }) {
  const notInLink = count > stalls.length ? <NotInLink listed={stalls.length} count={count} /> : null;
  if (stalls.length === 0) return notInLink ?? <p className="muted" data-testid="no-stalls">No stalls.</p>;
  return (
    <>
      {notInLink}
      <ScrollRegion label="Stalls">
        <table className="stalls" data-testid="stall-table">
          <caption>
            {count} stall{count === 1 ? '' : 's'}{totalSeconds != null ? `, ${formatDuration(totalSeconds)} in total` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Cause</th>
              <th scope="col">Start</th>
              <th scope="col">Duration</th>
              <th scope="col">Ended by</th>
              <th scope="col">Frames</th>
            </tr>
          </thead>
          <tbody>
            {stalls.slice(0, MAX_STALL_ROWS).map((s) => (
              <tr key={`${s.frameBefore}-${s.frameAfter}`} data-cause={s.cause}>
                <td>
                  {onSelect ? (
                    <button type="button" className="link" onClick={() => onSelect(s.start, s.duration)} title="Show this stall on the charts">
                      {CAUSE_LABEL[s.cause]}
                    </button>
                  ) : (
                    CAUSE_LABEL[s.cause]
                  )}
                </td>
                <td className="num">{formatTimestamp(s.start)}</td>
                <td className="num">{formatDuration(s.duration)}</td>
                <td>{s.endedBy}</td>
                <td className="num">
                  {s.frameBefore}–{s.frameAfter}
                </td>
              </tr>
            ))}
            {stalls.length > MAX_STALL_ROWS && (
              <tr>
                <td colSpan={5} className="muted">
                  … and {stalls.length - MAX_STALL_ROWS} more (first {MAX_STALL_ROWS} shown)
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}

/** "Captured at the receiver; path RTT 40 ms (handshake …)." */
function VantageLine({ path }: { path: PathInfo }) {
  return (
    <p className="diagnosis-vantage" data-testid="vantage" data-vantage={path.vantage}>
      <strong>{VANTAGE_LABEL[path.vantage] ?? path.vantage}</strong>
      {path.pathRttMs != null ? (
        <>
          ; path RTT <span data-testid="path-rtt">{formatMs(path.pathRttMs)}</span>
          {path.pathRttMethod ? ` (${path.pathRttMethod})` : ''}
        </>
      ) : (
        '; no path RTT could be measured'
      )}
      <span className="muted"> — {VANTAGE_NOTE[path.vantage] ?? ''}.</span>
    </p>
  );
}

// Memoised: a zoom or pan gesture re-renders the app every frame and this does not change with the range.
export const DiagnosisPanel = memo(function DiagnosisPanel({ summary, stalls, onSelectStall, headingId = `diagnosis-${summary.id}`, mptcp }: DiagnosisPanelProps) {
  const d = summary.diagnosis;
  const list = stalls ?? summary.directions[summary.dataDirection].stalls;
  const sender = summary.directions[summary.dataDirection];
  const path = pathInfo(summary);
  const evidence = evidenceOf(d);
  // Latency under load is the engine's finding (wasm diagnosis/latency_under_load.rs
  // note_latency_under_load), shown on its own line; the other episodes are listed.
  const load = episodesOf(d).find((e) => e.kind === 'latency') ?? null;
  const episodes = episodesOf(d).filter((e) => e.kind !== 'latency');
  const rtt = rttStats(sender.rtt);
  const offset = 'offsetMs' in sender.rtt ? sender.rtt.offsetMs : undefined;
  const follows = 'offsetFollows' in sender.rtt && sender.rtt.offsetFollows === true;
  // The engine's (verdict/diagnosis/path_words.rs far_part_unseen); links made before it lack it.
  const farUnseen = 'farPartUnseen' in d && d.farPartUnseen === true;
  const active = activeMeanBps(sender.throughput);
  return (
    <section
      className="diagnosis"
      data-testid="diagnosis"
      data-limit={d.limit}
      data-vantage={path?.vantage}
      data-path-rtt-ms={path?.pathRttMs ?? undefined}
      data-rtt-ms={evidence?.rttMs ?? undefined}
      data-window-bytes={evidence?.windowBytes ?? undefined}
      data-window-inferred={evidence ? String(evidence.windowInferred) : undefined}
      data-rate-bps={evidence?.rateBps ?? undefined}
      data-link-bps={evidence?.linkRateBps ?? undefined}
      data-cap-bps={evidence?.capBps ?? undefined}
      data-verdict={evidence?.verdict}
      aria-labelledby={headingId}
    >
      <h2 id={headingId}>Why was it slow? {LIMIT_LABEL[d.limit] ?? d.limit}</h2>
      <p className="diagnosis-text" data-testid="diagnosis-text">
        {d.text || 'No diagnosis for this connection.'}
      </p>
      {/* The level above this subflow (wasm analysis/track/mptcp.rs `text`): the data-level
          bytes and rate, redundancy, subflows that did not join. Every subflow shows it. */}
      {mptcp?.text ? (
        <p className="diagnosis-mptcp" data-testid="mptcp-text" data-mptcp={mptcp.id}>
          <strong>MPTCP.</strong> {mptcp.text}
        </p>
      ) : null}
      {episodes.length > 0 && (
        <ol className="episodes" data-testid="episodes" aria-label="What happened, period by period">
          {episodes.map((e, i) => (
            <li key={`${e.kind}-${e.start}-${i}`} data-kind={e.kind}>
              <strong>{EPISODE_LABEL[e.kind] ?? e.kind}</strong>,{' '}
              {onSelectStall ? (
                <button type="button" className="link" onClick={() => onSelectStall(e.start, e.end - e.start)} title="Show this period on the charts">
                  {formatTimestamp(e.start)} – {formatTimestamp(e.end)}
                </button>
              ) : (
                <span>{formatTimestamp(e.start)} – {formatTimestamp(e.end)}</span>
              )}
              : {e.text}
            </li>
          ))}
        </ol>
      )}
      {path && <VantageLine path={path} />}
      {load && (
        <p className="diagnosis-load" data-testid="latency-under-load">{load.text}</p>
      )}
      {!(LIMITS_WITHOUT_SHARES as readonly Limit[]).includes(d.limit) && <SharesBar shares={d.shares} />}
      <dl className="diagnosis-numbers">
        <dt>Rate of {sender.from} → {sender.to}</dt>
        <dd data-testid="rates">
          {/* Data at one instant (one segment, or one timestamp): the means have no time to
              divide by, and "0 bit/s" beside a peak read as if nothing was sent
              (tcpdump's bigtcp-ipv6.pcap: one 78 KiB frame). */}
          {sender.payloadBytes > 0 && sender.throughput.meanBps === 0 && !active ? (
            <>all of it at one instant: no mean rate</>
          ) : (
            <>
              {formatBitrate(sender.throughput.meanBps)} mean over the connection&apos;s duration
              {/* 0 with data sent: no burst held two segments, no rate (docs/ANALYSIS.md throughput.activeMeanBps). */}
              {active != null && (active > 0 ? <>, {formatBitrate(active)} mean while active</> : <>, no rate while active (no burst of two segments)</>)}
            </>
          )}
          ; peak {formatBitrate(sender.throughput.peakBps)} (largest {formatDuration(sender.throughput.binSeconds)} bin)
        </dd>
        <dt>Round-trip times of {sender.from} → {sender.to}</dt>
        <dd data-testid="rtt-stats">
          min {formatMs(rtt.minMs)}, median {formatMs(rtt.medianMs)}, p95 {formatMs(rtt.p95Ms)}, max {formatMs(rtt.maxMs)}
          {rtt.samples != null && (
            <>
              {' '}({rtt.samples.toLocaleString('en-US')} sample{rtt.samples === 1 ? '' : 's'}
              {rtt.excludedSamples ? `; ${rtt.excludedSamples.toLocaleString('en-US')} left out: timestamp echoes across idle time, recovery or persist probes, or below the clock tick` : ''})
            </>
          )}
          {offset != null && offset > 0 && (
            <span className="muted">
              {farUnseen
                ? ` — each sample adds the round trip on the other side of the capture point, known only by its minimum (${formatMs(offset)}): a queue there does not show`
                : follows
                ? ` — each sample adds the round trip on the other side of the capture point as last measured (at least ${formatMs(offset)})`
                : ` — each sample adds the ${formatMs(offset)} of the round trip on the other side of the capture point`}
            </span>
          )}
        </dd>
      </dl>
      <h3 style={{ fontSize: '1rem', margin: '12px 0 4px' }}>
        Stalls of {sender.from} → {sender.to}
      </h3>
      {/* The summary's list: a share link may list fewer than the direction had (stallCount). */}
      <StallTable stalls={list} count={list === sender.stalls ? stallCount(sender) : list.length} totalSeconds={list === sender.stalls ? sender.stallSeconds : undefined} onSelect={onSelectStall} />
    </section>
  );
});

export default DiagnosisPanel;
