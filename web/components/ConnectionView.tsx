// Everything about the selected connection: its numbers per direction, the charts
// on one time axis, the diagnosis and the bandwidth-delay calculator.
import type { ConnectionData, DirectionSummary } from '../model/types';
import type { ViewState } from '../state/url';
import type { DecoderClient } from '../worker/client';
import { formatBytesSI, formatRate } from './units';

interface Props {
  data: ConnectionData;
  view: ViewState;
  onView: (update: (v: ViewState) => ViewState) => void;
  client: DecoderClient;
}

const ms = (x: number | null) => (x === null ? '–' : `${x.toFixed(x < 10 ? 2 : 1)} ms`);

function scaleText(d: DirectionSummary): string {
  if (d.windowScaleUnknown) return d.windowScaleLowerBound !== null ? `unknown (≥ ${d.windowScaleLowerBound})` : 'unknown';
  return d.windowScale === null ? 'none' : `${d.windowScale} (×${2 ** d.windowScale})`;
}

const rows: [string, (d: DirectionSummary) => string][] = [
  ['Packets', (d) => d.packets.toLocaleString('en-US')],
  ['Payload', (d) => formatBytesSI(d.payloadBytes)],
  ['Mean / peak rate', (d) => `${formatRate(d.throughput.meanBps)} / ${formatRate(d.throughput.peakBps)}`],
  ['Window scale', scaleText],
  ['Advertised window', (d) => (d.receiveWindow ? `${formatBytesSI(d.receiveWindow.min)} – ${formatBytesSI(d.receiveWindow.max)}` : '–')],
  ['Max bytes in flight', (d) => (d.maxBytesInFlight === null ? '–' : formatBytesSI(d.maxBytesInFlight))],
  ['RTT min / median', (d) => `${ms(d.rtt.minMs)} / ${ms(d.rtt.medianMs)}`],
  ['Retransmissions (fast, spurious)', (d) => `${d.retransmissions} (${d.fastRetransmissions}, ${d.spuriousRetransmissions})`],
  ['Duplicate ACKs', (d) => String(d.duplicateAcks)],
  ['Zero windows / probes', (d) => `${d.zeroWindows} / ${d.zeroWindowProbes}`],
  ['Window full', (d) => String(d.windowFull)],
  ['Previous segment not captured', (d) => String(d.lostSegments)],
  ['Out of order', (d) => String(d.outOfOrder)],
  ['Stalls', (d) => String(d.stalls.length)],
];

export function ConnectionView({ data }: Props) {
  const { summary } = data;
  return (
    <section className="connection" data-testid="connection" data-connection={summary.id}>
      <h2>
        Connection {summary.id}: {summary.endpoints[0]} ⇄ {summary.endpoints[1]}
      </h2>
      <table className="direction-stats" data-testid="direction-stats">
        <thead>
          <tr>
            <th />
            {summary.directions.map((d, i) => (
              <th key={i} className={i === summary.dataDirection ? 'data-dir' : undefined}>
                {d.from} → {d.to}
                {i === summary.dataDirection ? ' (data)' : ''}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {summary.directions.map((d, i) => <td key={i} className="num">{value(d)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
