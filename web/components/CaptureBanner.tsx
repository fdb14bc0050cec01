// File-level facts, the "damaged after packet N" banner, and per-packet warnings.
import type { Report } from '../model/types';
import { formatBytesSI, formatDuration } from '../model/format';

/** At most a few link-type names: a hostile pcapng can declare 65,535 interfaces. */
export function linkTypesText(linkTypes: string[], max = 4): string {
  if (linkTypes.length <= max) return linkTypes.join(' + ');
  return `${linkTypes.slice(0, max).join(' + ')} and ${(linkTypes.length - max).toLocaleString('en-US')} more link types`;
}

export function CaptureBanner({ name, report }: { name: string; report: Report }) {
  const { capture, error, warnings } = report;
  const damaged = error && capture.packets > 0;
  return (
    <section className="capture" data-testid="capture">
      <p>
        <strong>{name}</strong>: {capture.format ?? 'unknown format'}
        {capture.linkTypes.length ? `, ${linkTypesText(capture.linkTypes)}` : ''}, {capture.packets.toLocaleString('en-US')} packets,{' '}
        {formatBytesSI(capture.bytes)} on the wire, {formatDuration(capture.duration)}.
      </p>
      {damaged ? (
        <div className="banner damaged" role="alert" data-testid="damaged-banner">
          The capture is damaged after packet {capture.packets.toLocaleString('en-US')}: {error.message} Everything before it is analysed and drawn.
        </div>
      ) : null}
      {warnings.length ? (
        <details className="warnings" data-testid="warnings">
          <summary>{warnings.reduce((n, w) => n + w.count, 0).toLocaleString('en-US')} packets were not analysed</summary>
          <ul>{warnings.map((w) => <li key={w.kind}>{w.message}</li>)}</ul>
        </details>
      ) : null}
      {report.connections.length === 0 && !error ? <p className="muted">This capture has no TCP connections.</p> : null}
    </section>
  );
}
