// "Why was it slow?" — the diagnosis of one connection (DESIGN.md "Limit diagnosis"):
// the headline limit, the text with its numbers (written by wasm/src/analysis/diagnosis.rs),
// where the time went as one stacked bar (T-RAT / RFC 4898 SndLim shares), and the
// stall table (DESIGN.md "Stall"): cause, start, duration, what ended it.
import type { ConnectionSummary, Diagnosis, Limit, Stall, StallCause } from '../model/types';
import { formatDuration, formatPercent, formatTimestamp } from '../model/format';

export interface DiagnosisPanelProps {
  summary: ConnectionSummary;
  /** Stalls to list instead of the data direction's (e.g. after changing the threshold). */
  stalls?: Stall[];
  /** Called when a stall row is chosen (e.g. to zoom the charts onto it). */
  onSelectStall?: (start: number, duration: number) => void;
}

export const LIMIT_LABEL: Record<Limit, string> = {
  'receive-window': 'Limited by the receive window',
  'zero-window': 'Receiver window hit zero',
  loss: 'Limited by packet loss',
  application: 'Limited by the sending application',
  stalls: 'Stalls',
  path: 'Limited by the path (link or congestion window)',
  'too-short': 'Too short to judge',
};

export const CAUSE_LABEL: Record<StallCause, string> = {
  'zero-window': 'zero window',
  'window-limited': 'window-limited',
  'retransmission-timeout': 'retransmission timeout',
  'application-idle': 'application idle',
  'ack-wait': 'waiting on ACKs',
  unknown: 'unknown',
};

type ShareKey = keyof Diagnosis['shares'];

/** Segments of the shares bar, in drawing order, with Okabe–Ito colours (colour-blind safe). */
export const SHARES: { key: ShareKey; label: string; color: string }[] = [
  { key: 'receiveWindow', label: 'receive window', color: '#0072b2' },
  { key: 'loss', label: 'loss recovery', color: '#d55e00' },
  { key: 'application', label: 'application', color: '#009e73' },
  { key: 'stalled', label: 'stalled', color: '#cc79a7' },
  { key: 'other', label: 'other (cwnd/path)', color: '#999999' },
];

function SharesBar({ shares }: { shares: Diagnosis['shares'] }) {
  const parts = SHARES.filter((s) => shares[s.key] > 0);
  const describe = SHARES.map((s) => `${s.label} ${formatPercent(shares[s.key])}`).join(', ');
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
        {SHARES.map((s) => (
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

function StallTable({ stalls, onSelect }: { stalls: Stall[]; onSelect?: (start: number, duration: number) => void }) {
  if (stalls.length === 0) return <p className="muted" data-testid="no-stalls">No stalls.</p>;
  const total = stalls.reduce((a, s) => a + s.duration, 0);
  return (
    <div className="table-wrap">
      <table className="stalls" data-testid="stall-table">
        <caption>
          {stalls.length} stall{stalls.length === 1 ? '' : 's'}, {formatDuration(total)} in total
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
    </div>
  );
}

export function DiagnosisPanel({ summary, stalls, onSelectStall }: DiagnosisPanelProps) {
  const d = summary.diagnosis;
  const list = stalls ?? summary.directions[summary.dataDirection].stalls;
  const sender = summary.directions[summary.dataDirection];
  return (
    <section className="diagnosis" data-testid="diagnosis" data-limit={d.limit} aria-labelledby={`diagnosis-${summary.id}`}>
      <h2 id={`diagnosis-${summary.id}`}>Why was it slow? {LIMIT_LABEL[d.limit] ?? d.limit}</h2>
      <p className="diagnosis-text" data-testid="diagnosis-text">
        {d.text || 'No diagnosis for this connection.'}
      </p>
      {d.limit !== 'too-short' && <SharesBar shares={d.shares} />}
      <h3 style={{ fontSize: '1rem', margin: '12px 0 4px' }}>
        Stalls of {sender.from} → {sender.to}
      </h3>
      <StallTable stalls={list} onSelect={onSelectStall} />
    </section>
  );
}

export default DiagnosisPanel;
