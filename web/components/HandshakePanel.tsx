import { memo } from 'react';
import type { Handshake, SynOptions } from '../model/types';
import { ScrollRegion } from './ScrollRegion';

/** What each side offered in the handshake (docs/ANALYSIS.md "connection.handshake"):
 *  one column per SYN, one row per option. Formats the report's values; computes nothing. */
// Memoised: a zoom or pan gesture re-renders the app every frame and this does not change with the range.
export const HandshakePanel = memo(function HandshakePanel({ handshake }: { handshake: Handshake | undefined }) {
  if (!handshake) return null;
  const sides: [string, SynOptions | null][] = [['SYN', handshake.syn], ['SYN/ACK', handshake.synAck]];
  const rows: [string, (o: SynOptions) => string][] = [
    ['MSS', (o) => (o.mss === null ? 'none' : `${o.mss} B`)],
    ['Window scale', (o) => (o.windowScale === null ? 'none' : `${o.windowScale} (×${2 ** Math.min(o.windowScale, 14)})`)],
    ['SACK permitted', (o) => yesNo(o.sackPermitted)],
    ['Timestamps', (o) => yesNo(o.timestamps)],
    ['ECN', (o) => (o.accecn ? 'Accurate ECN' : yesNo(o.ecn))],
    ['TCP Fast Open', (o) => yesNo(o.tfo)],
  ];
  return (
    <section className="handshake" data-testid="handshake" data-window-scaling={handshake.windowScaling}>
      <h3>Handshake</h3>
      <p data-testid="handshake-scaling">Window scaling: {SCALING[handshake.windowScaling]}</p>
      {/* Scrolls sideways on a narrow screen rather than widening the page. */}
      <ScrollRegion label="Handshake options" tall>
        <table>
          <thead>
            <tr><th scope="col">Option</th>{sides.map(([name, o]) => <th key={name} scope="col">{name}{o ? ` from ${o.from}` : ''}</th>)}</tr>
          </thead>
          <tbody>
            {rows.map(([label, cell]) => (
              <tr key={label}><th scope="row">{label}</th>{sides.map(([name, o]) => <td key={name}>{o ? cell(o) : 'not captured'}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </section>
  );
});

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

const SCALING: Record<Handshake['windowScaling'], string> = {
  negotiated: 'negotiated (both sides offered it)',
  absent: 'not in use (one side did not offer it)',
  'not-captured': 'unknown (the handshake is not in the capture)',
};
