import type { Progress } from '../worker/client';
import { countOf, formatBytesSI } from '../model/format.mjs';

/**
 * The load's progress. Once every byte is read the worker still decodes the last slice
 * and runs the end-of-capture analysis (retransmission kinds, stalls, the diagnosis):
 * ≈ 1.5 s on 10^7 packets (bench/README.md), which a bar stuck at 100 % under
 * "Decoding" would leave unexplained. The bar is then indeterminate (no value), as it
 * is for a download of unannounced size (#url= without Content-Length).
 */
export function ProgressBar({ name, progress, onCancel }: { name: string; progress: Progress | null; onCancel: () => void }) {
  const total = progress?.totalBytes ?? 0;
  const read = progress?.bytesRead ?? 0;
  const fraction = total > 0 ? Math.min(1, read / total) : 0;
  const seconds = (progress?.elapsedMs ?? 0) / 1000;
  const rate = seconds > 0 ? read / seconds : 0;
  const allRead = total > 0 && read >= total;
  const packets = countOf(progress?.packets ?? 0, 'packet');
  return (
    <section className="progress" data-testid="progress" aria-live="polite">
      {allRead ? (
        <p data-testid="progress-analysing">
          Analysing <strong><bdi>{name}</bdi></strong>: all {formatBytesSI(total)} read, {packets} so far · finding retransmissions, stalls and their causes
        </p>
      ) : (
        <p>
          {/* A download that did not announce its size (no Content-Length): bytes read only. */}
          Decoding <strong><bdi>{name}</bdi></strong>: {formatBytesSI(read)} {total > 0 ? `of ${formatBytesSI(total)} (${Math.floor(fraction * 100)} %)` : 'read'}
          {rate > 0 ? ` at ${formatBytesSI(rate)}/s` : ''} · {packets}
        </p>
      )}
      {allRead || (total === 0 && read > 0) ? <progress max={1} aria-label={allRead ? 'analysing' : 'bytes read'} /> : <progress max={1} value={fraction} aria-label="bytes read" />}
      <button className="button" onClick={onCancel} data-testid="cancel">Cancel</button>
    </section>
  );
}
