// What the engine said about a chart's answers, in its own box under the chart: what
// was clamped and why ("bin raised from 1 µs to 2 ms: at most 4 bins per pixel
// column"), caveats about the data, or why the chart cannot draw.
import type { ViewAnswer } from '../worker/viewAnswer';
import { clampedSentences } from './useViewAnswers';

export function ChartMessages({ answers, failure }: { answers: (ViewAnswer | null)[]; failure: string | null }) {
  const clamped = clampedSentences(answers);
  const notes = [...new Set(answers.flatMap((a) => a?.notes ?? []))];
  if (!failure && clamped.length === 0 && notes.length === 0) return null;
  return (
    <div className="tcps-messages">
      {failure && <p className="tcps-failure" role="alert">This chart cannot be drawn: {failure}</p>}
      {clamped.map((s) => <p key={s} className="tcps-clamped" data-testid="clamped" role="status">{s}</p>)}
      {notes.map((s) => <p key={s} className="tcps-data-note">{s}</p>)}
    </div>
  );
}
