// @vitest-environment jsdom
// A chart that throws says why in its own box; the other charts of the stack are drawn.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { ConnectionCharts } from './ConnectionCharts';
import { engineFor } from '../charts/testEngine';
import '../charts/testUtil';

vi.mock('../charts/RttChart', () => ({
  RttChart: () => {
    throw new Error('RTT samples out of order');
  },
}));

describe('ConnectionCharts error boundaries', () => {
  let spy: ReturnType<typeof vi.spyOn>;
  beforeEach(() => { spy = vi.spyOn(console, 'error').mockImplementation(() => undefined); });
  afterEach(() => spy.mockRestore());

  it('the broken chart shows its error in its own figure; the others draw', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const root = createRoot(host);
    const { report, source } = engineFor('stalls.pcap');
    await act(async () => root.render(<ConnectionCharts width={900} summary={report.connections[0]} source={source} />));
    const rtt = host.querySelector('figure[data-chart="rtt"]')!;
    expect(rtt.querySelector('[data-testid="render-error"]')!.textContent).toContain('This chart could not be drawn: RTT samples out of order');
    for (const id of ['throughput', 'inflight', 'stalls', 'sequence']) {
      expect(host.querySelector(`figure[data-chart="${id}"] svg[data-chart="${id}"]`)).not.toBeNull();
      expect(host.querySelector(`figure[data-chart="${id}"] [data-testid="render-error"]`)).toBeNull();
    }
    await act(async () => root.unmount());
    host.remove();
  });
});
