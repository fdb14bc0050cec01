// The packet CSV's columns come from the session by the generated names (COLUMNS): each
// field of the model's ConnectionData is filled, at the length the engine gives.
import { describe, expect, it } from 'vitest';
import { engineFor } from '../charts/testEngine';
import { connectionData } from './columns';

describe('connectionData', () => {
  it('fills every column of the model from the session', () => {
    const { report, session } = engineFor('cubic-loss.pcap');
    const summary = report.connections[0];
    const data = connectionData(session, summary);
    // One row per packet of the connection in packets.*; SACK blocks and RTT samples in their own.
    const packets = summary.packets;
    const fields: Record<string, string[]> = {
      packets: ['t', 'dir', 'frame', 'seq', 'len', 'wireLen', 'ack', 'win', 'inFlight', 'flags'],
      sack: ['t', 'dir', 'left', 'right'],
      rtt: ['t', 'dir', 'rttMs', 'kind'],
    };
    for (const [group, names] of Object.entries(fields)) {
      const columns = data[group as 'packets' | 'sack' | 'rtt'] as unknown as Record<string, ArrayLike<number>>;
      expect(Object.keys(columns).sort(), group).toEqual([...names].sort());
      const lengths = new Set(names.map((n) => columns[n].length));
      expect(lengths.size, group).toBe(1);
    }
    expect(data.packets.t.length).toBe(packets);
    // cubic-loss.pcap's data receiver SACKs and the sender's RTT is sampled.
    expect(data.sack.t.length).toBeGreaterThan(0);
    expect(data.rtt.t.length).toBeGreaterThan(0);
  });
});
