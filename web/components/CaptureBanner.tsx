// File-level facts, the "damaged after packet N" banner, what the capture set-up did to
// the packets (duplicate frames ignored, a coarse capture clock: issue 13 items 2 and 3),
// and per-packet warnings.
import { memo } from 'react';
import type { Report } from '../model/types';
import { captureQuality } from '../model/types';
import { countOf, formatBytesSI, formatDuration, formatMs } from '../model/format.mjs';
import { BANNER_WARNING_KINDS, type WarningKind } from '../worker/generated/vocabulary';
import type { WarningTotals } from '../worker/generated/view';

/** At most a few link-type names: a hostile pcapng can declare 65,535 interfaces. */
export function linkTypesText(linkTypes: string[], max = 4): string {
  if (linkTypes.length <= max) return linkTypes.join(' + ');
  return `${linkTypes.slice(0, max).join(' + ')} and ${(linkTypes.length - max).toLocaleString('en-US')} more link types`;
}

/** Warning kinds shown as their own banner (from report.capture), not in the warnings
 *  list; those of packets that may hold unreachable TCP; those analysed all the same:
 *  the one vocabulary's (wasm/src/boundary/words.rs `WarningPlace`). */
export { BANNER_WARNING_KINDS };

/** A capture clock coarser than this (ms) gets the banner. */
export const COARSE_CLOCK_MS = 1;

/** "12 duplicate frames from the capture set-up were ignored (3 802.11 retries)." */
export function duplicateFramesText(frames: number, wifiRetries: number): string {
  const n = frames.toLocaleString('en-US');
  const retries = wifiRetries > 0 ? ` (${wifiRetries.toLocaleString('en-US')} 802.11 ${wifiRetries === 1 ? 'retry' : 'retries'})` : '';
  return `${n} duplicate frame${frames === 1 ? '' : 's'} from the capture set-up ${frames === 1 ? 'was' : 'were'} ignored${retries}.`;
}

/** "The capture clock ticks every 10 ms: RTTs and stalls shorter than that cannot be measured." */
export function coarseClockText(resolutionMs: number): string {
  return `The capture clock ticks every ${formatMs(resolutionMs)}: RTTs and stalls shorter than that cannot be measured.`;
}

// Memoised: a zoom or pan gesture re-renders the app every frame; the banner does not change.
export const CaptureBanner = memo(function CaptureBanner({ name, report }: { name: string; report: Report }) {
  const { capture, error } = report;
  const damaged = error && capture.packets > 0;
  const quality = captureQuality(capture);
  const byKind = (kind: WarningKind) => report.warnings.find((w) => w.kind === kind);
  // The report's numbers when it has them, else the warning's own words (same fact, said once).
  const duplicates = quality && quality.duplicateFrames > 0
    ? duplicateFramesText(quality.duplicateFrames, quality.wifiRetries)
    : byKind('duplicate-frames')?.message;
  const coarse = quality && quality.timestampResolutionMs != null && quality.timestampResolutionMs > COARSE_CLOCK_MS
    ? coarseClockText(quality.timestampResolutionMs)
    : byKind('coarse-clock')?.message;
  // Bytes the receivers acknowledged that the capture never saw (issue 17; the
  // engine's own sentence: docs/ANALYSIS.md "connection.captureLoss").
  const captureLoss = byKind('capture-loss')?.message;
  // Connections captured in one direction only (analysis/verdict/one_direction.rs): its count
  // is connections, not packets, so it is no line of "N packets were not analysed".
  const oneDirection = byKind('one-direction')?.message;
  const warnings = report.warnings.filter((w) => !(BANNER_WARNING_KINDS as readonly WarningKind[]).includes(w.kind));
  const noConnections = report.connections.length === 0 && !error;
  return (
    <section className="capture" data-testid="capture">
      <p>
        <strong><bdi>{name}</bdi></strong>: {capture.format ?? 'unknown format'}
        {capture.linkTypes.length ? `, ${linkTypesText(capture.linkTypes)}` : ''}, {countOf(capture.packets, 'packet')},{' '}
        {formatBytesSI(capture.bytes)} on the wire, {formatDuration(capture.duration)}.
      </p>
      {damaged ? (
        <div className="banner damaged" role="alert" data-testid="damaged-banner">
          The capture is damaged after packet {capture.packets.toLocaleString('en-US')}: {error.message} Everything before it is analysed and drawn.
        </div>
      ) : null}
      {duplicates ? (
        <div className="banner capture-note" role="status" data-testid="duplicate-frames-banner">
          {duplicates}
        </div>
      ) : null}
      {coarse ? (
        <div className="banner capture-note" role="status" data-testid="coarse-clock-banner">
          {coarse}
        </div>
      ) : null}
      {byKind('payload-only') ? (
        // Every segment carries data (analysis/mod.rs `payload_only`): a filtered capture.
        <div className="banner capture-note" role="status" data-testid="payload-only-banner">
          {byKind('payload-only')!.message}.
        </div>
      ) : null}
      {captureLoss ? (
        <div className="banner capture-note" role="status" data-testid="capture-loss-banner">
          {captureLoss}
        </div>
      ) : null}
      {oneDirection ? (
        <div className="banner capture-note" role="status" data-testid="one-direction-banner">
          {oneDirection}
        </div>
      ) : null}
      {byKind('time-went-backwards') ? (
        <div className="banner capture-note" role="status" data-testid="time-backwards-banner">
          Time goes backwards in this capture: {byKind('time-went-backwards')!.message}.
        </div>
      ) : null}
      {byKind('time-jumped-forward') ? (
        // Analysed as stamped (docs/ANALYSIS.md "Time order"): no "packet not analysed".
        <div className="banner capture-note" role="status" data-testid="time-jump-banner">
          The clock jumps forward in this capture: {byKind('time-jumped-forward')!.message}.
        </div>
      ) : null}
      {noConnections ? <p className="muted" data-testid="no-connections">{noConnectionsText(report.warningTotals)}</p> : null}
      {warnings.length ? (
        // Open when nothing else is shown: then they are the reason (a link type tcpscope
        // cannot decode is not "no TCP": tshark may find TCP in it).
        <details className="warnings" data-testid="warnings" open={noConnections}>
          <summary>{warningsSummary(report.warningTotals)}</summary>
          <ul>{warnings.map((w) => <li key={w.kind}>{w.message}</li>)}</ul>
        </details>
      ) : null}
    </section>
  );
});

/** Why nothing is charted: no TCP at all, or TCP tcpscope could not read. Packets of
 *  a link type it cannot decode, or IP fragments, may well hold TCP (tshark may
 *  show it), so "no TCP" would be wrong then. `totals`: the engine's sums of the
 *  warnings (report.rs `WarningTotals`). */
export function noConnectionsText(totals: WarningTotals | undefined): string {
  const n = totals?.unreadable ?? 0;
  if (n === 0) return 'This capture has no TCP connections.';
  return `No TCP connection could be read: ${n === 1 ? '1 packet' : `${n.toLocaleString('en-US')} packets`} may hold TCP that tcpscope cannot decode (below).`;
}

/** "3 packets were not analysed", "2 packets analysed all the same (see below)", or both;
 *  from the engine's sums (links made before it had them: "Warnings"). The analysed
 *  kinds differ (a repaired timestamp, link padding, a checksum the peer's ACK vouches
 *  for: report.rs `WarningPlace::Analysed`); each says its own in the list. */
export function warningsSummary(totals: WarningTotals | undefined): string {
  if (!totals) return 'Warnings';
  const { notAnalysed: skipped, repaired } = totals;
  const parts: string[] = [];
  if (skipped > 0) parts.push(skipped === 1 ? '1 packet was not analysed' : `${skipped.toLocaleString('en-US')} packets were not analysed`);
  if (repaired > 0) parts.push(`${countOf(repaired, 'packet')} analysed all the same (see below)`);
  return parts.join('; ');
}
