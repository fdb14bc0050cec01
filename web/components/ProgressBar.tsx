import type { Progress } from '../worker/client';
import { countOf, formatBytesSI } from '../model/format';

export function ProgressBar({ name, progress, onCancel }: { name: string; progress: Progress | null; onCancel: () => void }) {
  const total = progress?.totalBytes ?? 0;
  const read = progress?.bytesRead ?? 0;
  const fraction = total > 0 ? read / total : 0;
  const seconds = (progress?.elapsedMs ?? 0) / 1000;
  const rate = seconds > 0 ? read / seconds : 0;
  return (
    <section className="progress" data-testid="progress" aria-live="polite">
      <p>
        Decoding <strong>{name}</strong>: {formatBytesSI(read)} of {formatBytesSI(total)}
        {rate > 0 ? ` at ${formatBytesSI(rate)}/s` : ''} · {countOf(progress?.packets ?? 0, 'packet')}
      </p>
      <progress max={1} value={fraction} aria-label="bytes read" />
      <button className="button" onClick={onCancel} data-testid="cancel">Cancel</button>
    </section>
  );
}
