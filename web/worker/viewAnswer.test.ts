// The worker's packed answers (wasm askPacked → unpackAnswer) are the JSON answers
// (ask → packAnswer) the CLI prints, array for array, on a capture with
// retransmission markers, for every series, whole view and zoomed.
import { describe, expect, it } from 'vitest';
import { engineFor } from '../charts/testEngine';
import { ask } from './ask.mjs';
import type { Series } from './generated/view';
import { packAnswer, unpackAnswer } from './viewAnswer';

const plain = (a: object) => JSON.parse(JSON.stringify(a, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));

describe('unpackAnswer', () => {
  it('equals the JSON answer for every series', () => {
    const { report, session } = engineFor('cubic-loss.pcap');
    const c = report.connections[0];
    let markers = 0;
    for (const series of <Series[]>['throughput', 'goodput', 'wire', 'inflight', 'rwnd', 'rtt', 'sequence', 'ack', 'windowEdge', 'stalls', 'windowLimited']) {
      for (const t1 of [c.end, c.start + (c.end - c.start) / 7]) {
        const request = { generation: 1, connection: c.id, series, t0: c.start, t1, columns: 1600 };
        const json = packAnswer(ask(session, { ask: 'view', request })).answer;
        const packed = session.askPacked(JSON.stringify({ ask: 'view', request }));
        const { answer, transfer } = unpackAnswer(packed.header(), packed.takeF64s(), packed.takeU32s());
        packed.free();
        expect(answer.kind, series).toBe(json.kind);
        expect(plain(answer), series).toEqual(plain(json));
        if (answer.kind === 'bins' || answer.kind === 'points') expect(transfer.length).toBe(2);
        if (answer.kind === 'points' && answer.markers) markers += answer.markers.t.length;
      }
    }
    expect(markers).toBeGreaterThan(0); // cubic-loss.pcap: retransmissions on the sequence graph
  });
});
