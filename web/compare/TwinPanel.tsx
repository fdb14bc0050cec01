// Two vantage points (issue 44): the merged panel of one connection seen at both ends —
// how it matched, the two clocks, per direction what happened between the two points,
// the one-way delays, which direction queued, the round trip cut in four, and each stall
// placed in the sender's host, the network or the receiver's host. Every number is the
// engine's TwinReport (wasm/src/twin, docs/ANALYSIS.md "Two vantage points"), formatted
// by web/model/format.mjs; none is computed here. `data-field` names each number's field
// so tests read them back.
import type { TwinPair, TwinDirection } from '../worker/generated/view';
import { MATCHED_BY_LABEL, PLACE_LABEL, PLACES, STALL_CAUSE_LABEL } from '../worker/generated/vocabulary';
import { formatCount, formatDuration } from '../charts/units';
import { formatBytes, formatMs, formatTimestamp } from '../model/format.mjs';
import { isolated } from '../security/outsideText';

/** The per-direction rows: the field, its column heading. */
const COUNTS: [keyof TwinDirection & string, string][] = [
  ['sent', 'sent'], ['delivered', 'delivered'], ['lostBetween', 'lost between'], ['reordered', 'reordered'],
  ['duplicated', 'duplicated'], ['notSeenAtSenderSide', 'unseen leaving'], ['notSeenAtReceiverSide', 'unseen arriving'],
];

/** `queued` in words: its value, but for `too-few-samples`. */
function queuedWords(queued: string): string {
  return queued === 'too-few-samples' ? 'too few samples to tell' : queued;
}

/** The two captures' stall thresholds, as the report names them. */
function thresholdWords([sender, receiver]: TwinPair['stallThresholdMs']): string {
  return `sender side ${formatMs(sender)}, receiver side ${formatMs(receiver)}`;
}

/** Which capture listed a stall, by the stalled direction: the pair's sender-side
 * capture is near a return-direction stall's receiver. */
function stallCaptureWords(st: TwinPair['stalls'][number]): string {
  const nearItsSender = (st.capture === 'sender-side') === (st.direction === 0);
  return `${st.direction === 0 ? 'forward' : 'return'}, at the capture near its ${nearItsSender ? 'sender' : 'receiver'}`;
}

/** A stall's place named by the data's sender and receiver (the panel's sides): a
 * place names the stalled direction's hosts, and a return stall's sender is the data
 * receiver. */
function dataPlace(g: TwinPair['distinctStalls'][number]): TwinPair['distinctStalls'][number]['place'] {
  if (g.direction === 0) return g.place;
  return g.place === 'sender-host' ? 'receiver-host' : g.place === 'receiver-host' ? 'sender-host' : g.place;
}

/** Entries that hold a host's late answer and the peer's wait for it (`peerWaitFrames`). */
function peerWaits(pair: TwinPair): number {
  return pair.distinctStalls.filter((g) => g.peerWaitFrames != null).length;
}

/** The stalls counted once (docs/ANALYSIS.md `twin.distinctStalls`); a share link made
 * before the engine counted them carries its rows only. */
function gapCount(pair: TwinPair): number {
  return pair.distinctStalls.length || pair.stalls.length;
}

const bytes = (b: number | null) => (b == null ? '–' : formatBytes(b));

function Num({ field, text }: { field: string; text: string }) {
  return <span data-field={field}>{text}</span>;
}

function DirectionRow({ k, d }: { k: number; d: TwinDirection }) {
  return (
    <tr data-direction={k}>
      <th scope="row">{k === 0 ? 'forward' : 'return'} <span className="muted">{d.from} → {d.to}</span></th>
      {COUNTS.map(([field]) => <td key={field}><Num field={field} text={formatCount(d[field] as number)} /></td>)}
      <td><Num field="delayMedian" text={formatMs(d.delay?.medianMs)} /></td>
      <td><Num field="delayP95" text={formatMs(d.delay?.p95Ms)} /></td>
      <td><Num field="queueP95" text={formatMs(d.queueP95Ms)} /></td>
    </tr>
  );
}

export function TwinPanel({ pair, names }: { pair: TwinPair; names: [string, string] }) {
  const side = (s: TwinPair['senderSide']) => `${isolated(names[s.input])} #${s.connection}`;
  const c = pair.clock;
  const s = pair.rttSplit;
  const f = pair.inFlight;
  return (
    <div className="twin-panel" data-testid="twin-panel">
      <p>
        Matched by <strong data-field="matchedBy" data-value={pair.matchedBy}>{MATCHED_BY_LABEL[pair.matchedBy]}</strong>.
        {' '}Data sender's side: <bdi data-field="senderSide">{side(pair.senderSide)}</bdi> ({pair.senderSide.endpoints.join(' → ')});
        {' '}receiver's side: <bdi data-field="receiverSide">{side(pair.receiverSide)}</bdi>{pair.rewritten ? ` (${pair.receiverSide.endpoints.join(' → ')}: rewritten between the two points)` : ''}.
      </p>
      {pair.refused ? <p className="notice" data-testid="twin-pair-refused">Not merged: {pair.refused}</p> : null}
      {c ? (
        <p data-testid="twin-clock">
          Clock offset <Num field="offset" text={formatMs(c.offsetMs)} /> ± <Num field="offsetUncertainty" text={formatMs(c.uncertaintyMs)} />,
          {' '}{c.driftPpm == null ? 'drift not measured (capture too short or datagrams not spread across it)' : Math.abs(c.driftPpm) <= (c.driftUncertaintyPpm ?? 0) ? <>no measurable drift (&lt; <Num field="drift" text={`${(Math.abs(c.driftPpm) + (c.driftUncertaintyPpm ?? 0)).toFixed(1)} ppm`} />)</> : <>drift <Num field="drift" text={`${c.driftPpm.toFixed(1)} ± ${c.driftUncertaintyPpm?.toFixed(1) ?? '–'} ppm`} /></>}.
          {' '}<span className="muted">{c.text}</span>
        </p>
      ) : null}
      {pair.directions.length ? (
        <div className="twin-table-wrap"><table className="twin-directions" data-testid="twin-directions">
          <thead>
            <tr>
              <th scope="col">direction</th>
              {COUNTS.map(([field, label]) => <th key={field} scope="col">{label}</th>)}
              <th scope="col">one-way delay median</th><th scope="col">p95</th><th scope="col">queue p95</th>
            </tr>
          </thead>
          <tbody>{pair.directions.map((d, k) => <DirectionRow key={k} k={k} d={d} />)}</tbody>
        </table></div>
      ) : null}
      <p>Queued: <Num field="queued" text={queuedWords(pair.queued)} />.
        {s ? <> Round trip: sender host <Num field="senderHost" text={formatMs(s.senderHostMs)} /> + forward path <Num field="forwardPath" text={formatMs(s.forwardPathMs)} /> ± {formatMs(s.pathUncertaintyMs)}
          {' '}+ receiver host <Num field="receiverHost" text={formatMs(s.receiverHostMs)} /> + return path <Num field="returnPath" text={formatMs(s.returnPathMs)} /> ± <Num field="pathUncertainty" text={formatMs(s.pathUncertaintyMs)} />
          {' '}(each path to the clock offset's uncertainty; their sum is exact).</> : null}
      </p>
      {f ? (
        <p data-testid="twin-in-flight">
          Sent, not yet acknowledged (SND.NXT − SND.UNA at the data sender's capture; during loss recovery more than is in the network):
          {' '}median <Num field="sentNotAcked" text={bytes(f.senderMedianBytes)} />, max {bytes(f.senderMaxBytes)}; the receiver-side capture alone
          {' '}estimated median <Num field="sentNotAckedEstimate" text={bytes(f.receiverEstimateMedianBytes)} />, within 10 % at {formatCount(f.withinTenPercent)} of {formatCount(f.compared)} segments.
        </p>
      ) : null}
      <h3>Stalls, placed (<Num field="stallCount" text={formatCount(gapCount(pair))} />)</h3>
      {pair.distinctStalls.length && pair.distinctStalls.length < pair.stalls.length ? (
        <p className="muted" data-testid="twin-stalls-once">
          A gap both captures saw is counted once{peerWaits(pair) ? `, and so is a host's late answer with the peer's wait for it (${formatCount(peerWaits(pair))})` : ''}: {formatCount(pair.stalls.length)} rows of the two captures' reports below,
          {' '}{formatCount(pair.distinctStalls.length)} gaps ({PLACES.map((place) => `${formatCount(pair.distinctStalls.filter((g) => dataPlace(g) === place).length)} ${PLACE_LABEL[place]}`).join(', ')}, by the data's sender and receiver).
        </p>
      ) : null}
      {pair.stalls.length ? (
        <ol className="twin-stalls" data-testid="twin-stalls">
          {pair.stalls.map((st, k) => (
            <li key={k} data-place={st.place} data-direction={st.direction}>
              {formatTimestamp(st.at)}: {formatDuration(st.duration)} ({STALL_CAUSE_LABEL[st.cause]}, {stallCaptureWords(st)}),{' '}
              <strong>{PLACE_LABEL[st.place]}</strong> — {st.why}
            </li>
          ))}
        </ol>
      ) : <p className="muted" data-testid="twin-no-stall">No gap in either capture reached its stall threshold ({thresholdWords(pair.stallThresholdMs)}): a shorter pause is no stall, so none is placed.</p>}
    </div>
  );
}
