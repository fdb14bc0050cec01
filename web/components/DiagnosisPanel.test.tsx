// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { DiagnosisPanel } from './DiagnosisPanel';
import type { ConnectionSummary, Episode, MptcpConnection, Stall } from '../model/types';
import { mptcpOf } from '../model/types';
import { dir, receiverSide, render } from './testUtil';

const stalls: Stall[] = [
  { start: 1.015, duration: 0.185, cause: 'retransmission-timeout', frameBefore: 5, frameAfter: 7, endedBy: 'retransmission of 1448 bytes at 1.200 s' },
  { start: 3.4, duration: 0.5001, cause: 'zero-window', frameBefore: 12, frameAfter: 15, endedBy: 'window update to 64 KiB' },
];

// The 802.11ac story: 64 KiB window, 2.8 ms, 169 Mbit/s average.
const summary: ConnectionSummary = {
  id: 3, endpoints: ['10.0.0.1:5001', '10.0.0.2:40000'], handshakeSeen: true, packets: 1000, start: 0, end: 5,
  dataDirection: 0,
  directions: [
    dir({ rtt: { minMs: 2.8, medianMs: 3 }, throughput: { meanBps: 169e6, peakBps: 186e6, binSeconds: 0.1 }, stalls, stallSeconds: 0.6851 }),
    dir({ from: '10.0.0.2:40000', to: '10.0.0.1:5001', receiveWindow: { min: 1000, max: 65536 } }),
  ],
  diagnosis: {
    limit: 'receive-window',
    text: 'The receiver never advertised more than 64 KiB.',
    shares: { receiveWindow: 0.91, loss: 0.02, application: 0, stalled: 0.05, other: 0.02 },
  },
};

describe('DiagnosisPanel', () => {
  it('shows the headline, text, shares and the stall table', () => {
    const el = render(<DiagnosisPanel summary={summary} />);
    const root = el.querySelector('[data-testid="diagnosis"]')!;
    expect(root.getAttribute('data-limit')).toBe('receive-window');
    expect(root.querySelector('h2')!.textContent).toContain('Limited by the receive window');
    expect(el.querySelector('[data-testid="diagnosis-text"]')!.textContent).toBe(summary.diagnosis.text);
    const bar = el.querySelector('[data-testid="diagnosis-shares"]')!;
    expect(bar.getAttribute('aria-label')).toContain('receive window 91 %');
    expect((bar.querySelector('[data-share="receiveWindow"]') as HTMLElement).style.width).toBe('91%');
    expect(bar.querySelector('[data-share="application"]')).toBeNull(); // 0 % is not drawn
    const rows = [...el.querySelectorAll('[data-testid="stall-table"] tbody tr')];
    expect(rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['retransmission timer', '1.015 s', '185 ms', 'retransmission of 1448 bytes at 1.200 s', '5–7'],
      ['zero window', '3.400 s', '500 ms', 'window update to 64 KiB', '12–15'],
    ]);
    // The engine's sum of the two stalls (stallSeconds: 185.0 ms + 500.1 ms).
    expect(el.querySelector('caption')!.textContent).toBe('2 stalls, 685 ms in total');
  });

  it('draws and names request/response turns only where there were some (links made before them lack the share)', () => {
    // wasm diagnosis_shares.rs "turns": a round trip per request, its own share and limit.
    const turns: ConnectionSummary = {
      ...summary,
      diagnosis: { limit: 'turns', text: 'Request/response turns set the pace.', shares: { receiveWindow: 0, loss: 0, application: 0.37, stalled: 0, other: 0.01, turns: 0.62 } },
    };
    const el = render(<DiagnosisPanel summary={turns} />);
    expect(el.querySelector('h2')!.textContent).toContain('Limited by request/response turns (round trips)');
    const bar = el.querySelector('[data-testid="diagnosis-shares"]')!;
    expect((bar.querySelector('[data-share="turns"]') as HTMLElement).style.width).toBe('62%');
    expect(bar.getAttribute('aria-label')).toContain('request/response turns 62 %');
    // The shares of a link made before `turns`: nothing drawn or named for it.
    const old = render(<DiagnosisPanel summary={summary} />).querySelector('[data-testid="diagnosis-shares"]')!;
    expect(old.querySelector('[data-share="turns"]')).toBeNull();
    expect(old.getAttribute('aria-label')).not.toContain('turns');
  });

  it('takes a stalls override and reports the chosen stall', () => {
    const onSelect = vi.fn();
    const el = render(<DiagnosisPanel summary={summary} stalls={[stalls[1]]} onSelectStall={onSelect} />);
    const buttons = el.querySelectorAll('[data-testid="stall-table"] button');
    expect(buttons.length).toBe(1);
    act(() => (buttons[0] as HTMLButtonElement).click());
    expect(onSelect).toHaveBeenCalledWith(3.4, 0.5001);
    const many = render(<DiagnosisPanel summary={summary} stalls={Array.from({ length: 600 }, (_, i) => ({ ...stalls[0], frameBefore: i, frameAfter: i + 1 }))} />);
    expect(many.querySelectorAll('[data-testid="stall-table"] tbody tr').length).toBe(501);
    expect(many.querySelector('[data-testid="stall-table"] tbody tr:last-child')!.textContent).toBe('… and 100 more (first 500 shown)');
    const none = render(<DiagnosisPanel summary={summary} stalls={[]} />);
    expect(none.querySelector('[data-testid="no-stalls"]')).not.toBeNull();
  });

  it("a share link's shortened list says how many stalls it lists, never 'No stalls.' for a direction that had some", () => {
    // wasm/src/share/build.rs: the stalls overlapping the shared view, or none, with the count kept (stallCount).
    const linked = (list: Stall[], count: number): ConnectionSummary => ({
      ...summary,
      directions: [{ ...summary.directions[0], stalls: list, stallCount: count }, summary.directions[1]],
    });
    const some = render(<DiagnosisPanel summary={linked([stalls[1]], 119)} />);
    expect(some.querySelector('[data-testid="stalls-not-in-link"]')!.textContent).toBe('This link lists the 1 of the 119 stalls that overlap the shared view; open the capture for the others.');
    expect(some.querySelectorAll('[data-testid="stall-table"] tbody tr').length).toBe(1);
    const none = render(<DiagnosisPanel summary={linked([], 119)} />);
    expect(none.querySelector('[data-testid="no-stalls"]')).toBeNull();
    expect(none.querySelector('[data-testid="stalls-not-in-link"]')!.textContent).toBe('This link lists none of the 119 stalls of this direction; open the capture for the list.');
    // A full list (every capture, and links that list all) says nothing more.
    const all = render(<DiagnosisPanel summary={linked(stalls, 2)} />);
    expect(all.querySelector('[data-testid="stalls-not-in-link"]')).toBeNull();
  });
});

describe('DiagnosisPanel: vantage, path RTT, episodes, RTT statistics and named rates (issue 13)', () => {
  const text = (el: HTMLElement, id: string) => el.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;

  it('receiver-side capture: says where it was taken and the path RTT with its method', () => {
    const el = render(<DiagnosisPanel summary={receiverSide()} />);
    const v = el.querySelector('[data-testid="vantage"]')!;
    expect(v.getAttribute('data-vantage')).toBe('receiver');
    expect(v.textContent).toContain('Captured at the receiver; path RTT 25 ms (handshake (SYN→SYN/ACK 24.9 ms + SYN/ACK→ACK 0.1 ms))');
    expect(text(el, 'path-rtt')).toBe('25 ms');
    expect(el.querySelector('[data-testid="latency-under-load"]')).toBeNull(); // base = path RTT
  });

  it.each([
    ['sender', 'Captured at the sender'],
    ['middle', 'Captured in the middle'],
    ['unknown', 'Capture point unknown'],
  ] as const)('vantage %s', (vantage, words) => {
    const el = render(<DiagnosisPanel summary={receiverSide({ path: { vantage } })} />);
    expect(text(el, 'vantage')).toContain(words);
  });

  it('no path RTT', () => {
    const el = render(<DiagnosisPanel summary={receiverSide({ path: { pathRttMs: null, pathRttMethod: '' } })} />);
    expect(text(el, 'vantage')).toContain('Captured at the receiver; no path RTT could be measured');
  });

  it('latency under load: the engine\'s finding on its own line, not in the episode list', () => {
    // As wasm diagnosis.rs note_latency_under_load writes it (bufferbloat.pcap's small flow).
    const latency = {
      start: 0, end: 3, kind: 'latency' as const,
      text: 'Latency under load: the RTT rose from 10 ms (the path\'s base, the smallest any connection between these hosts saw) to 107 ms (median, 11×).',
    };
    const el = render(<DiagnosisPanel summary={receiverSide({ path: { pathRttMs: 82, baseRttMs: 10 }, episodes: [latency] })} />);
    expect(text(el, 'latency-under-load')).toBe(latency.text);
    expect(el.querySelector('[data-testid="episodes"] [data-kind="latency"]')).toBeNull();
    // No such finding from the engine: no line, whatever the numbers.
    expect(render(<DiagnosisPanel summary={receiverSide({ path: { pathRttMs: 180, baseRttMs: 10 } })} />)
      .querySelector('[data-testid="latency-under-load"]')).toBeNull();
  });

  it('RTT statistics with their names, and each mean rate named, peak beside it', () => {
    const el = render(<DiagnosisPanel summary={receiverSide()} />);
    expect(text(el, 'rtt-stats')).toBe(
      'min 20 µs, median 50 µs, p95 300 µs, max 1.2 ms (1,234 samples; 12 left out: timestamp echoes across idle time, recovery or persist probes, or below the clock tick)',
    );
    expect(text(el, 'rates')).toBe(
      "120 Mbit/s mean over the connection's duration, 160 Mbit/s mean while active; peak 171 Mbit/s (largest 10 ms bin)",
    );
    // At a receiver-side capture each sample carries the other half of the round trip.
    const rx = receiverSide();
    (rx.directions[0].rtt as { offsetMs?: number }).offsetMs = 24.9;
    expect(text(render(<DiagnosisPanel summary={rx} />), 'rtt-stats')).toContain('— each sample adds the 25 ms of the round trip on the other side of the capture point');
    // Where the data's own part is the receiver's ACK delay, the far part follows the queue.
    (rx.directions[0].rtt as { offsetFollows?: boolean }).offsetFollows = true;
    expect(text(render(<DiagnosisPanel summary={rx} />), 'rtt-stats')).toContain(
      '— each sample adds the round trip on the other side of the capture point as last measured (at least 25 ms)',
    );
    // Following, but no sample of the far part ever served (a receiver-side capture
    // without TCP timestamps): the panel says the queue there cannot show.
    (rx.directions[0].rtt as { followedSamples?: number }).followedSamples = 0;
    // The engine tells it from these fields (diagnosis.farPartUnseen, path_words.rs
    // far_part_unseen); the panel reads the flag, not the fields.
    (rx.diagnosis as { farPartUnseen?: boolean }).farPartUnseen = true;
    expect(text(render(<DiagnosisPanel summary={rx} />), 'rtt-stats')).toContain(
      '— each sample adds the round trip on the other side of the capture point, known only by its minimum (25 ms): a queue there does not show',
    );
    // A report without the issue-13 fields: what it has, the rest as "–".
    const old = render(<DiagnosisPanel summary={summary} />);
    expect(text(old, 'rtt-stats')).toBe('min 2.8 ms, median 3 ms, p95 –, max –');
    expect(text(old, 'rates')).toBe("169 Mbit/s mean over the connection's duration; peak 186 Mbit/s (largest 100 ms bin)");
    expect(old.querySelector('[data-testid="vantage"]')).toBeNull();
    expect(old.querySelector('[data-testid="episodes"]')).toBeNull();
    // All the data at one instant (tcpdump's bigtcp-ipv6.pcap: one 78 KiB frame, a
    // connection 0 s long): no mean rate, rather than "0 bit/s" beside a non-zero peak.
    const instant = receiverSide();
    const d = instant.directions[instant.dataDirection];
    Object.assign(d, { payloadBytes: 80_000, throughput: { ...d.throughput, meanBps: 0, activeMeanBps: 0, peakBps: 6_400_000, binSeconds: 0.1 } });
    expect(text(render(<DiagnosisPanel summary={instant} />), 'rates')).toBe('all of it at one instant: no mean rate; peak 6.4 Mbit/s (largest 100 ms bin)');
  });

  it('episodes under the headline, in order, each choosable', () => {
    const onSelect = vi.fn();
    const episodes: Episode[] = [
      { start: 100, end: 220, kind: 'loss', text: 'each burst took 0.6–1.7 s instead of 45 ms: 6–15 retransmissions per burst' },
      { start: 230.5, end: 231, kind: 'delay-spike', text: 'RTT rose by 400 ms before the RTO' },
    ];
    const el = render(<DiagnosisPanel summary={receiverSide({ episodes })} onSelectStall={onSelect} />);
    const list = el.querySelector('[data-testid="episodes"]')!;
    // Right under the headline text.
    expect(el.querySelector('[data-testid="diagnosis-text"]')!.nextElementSibling).toBe(list);
    const items = [...list.querySelectorAll('li')];
    expect(items.map((li) => li.getAttribute('data-kind'))).toEqual(['loss', 'delay-spike']);
    expect(items[0].textContent).toBe('Loss, 100.000 s – 220.000 s: each burst took 0.6–1.7 s instead of 45 ms: 6–15 retransmissions per burst');
    expect(items[1].textContent).toBe('Delay spike, 230.500 s – 231.000 s: RTT rose by 400 ms before the RTO');
    act(() => items[1].querySelector('button')!.click());
    expect(onSelect).toHaveBeenCalledWith(230.5, 0.5);
  });

  it('carries the numbers the headline used as data attributes', () => {
    const root = render(<DiagnosisPanel summary={receiverSide()} />).querySelector('[data-testid="diagnosis"]')!;
    expect(root.getAttribute('data-vantage')).toBe('receiver');
    expect(root.getAttribute('data-path-rtt-ms')).toBe('25');
    expect(root.getAttribute('data-rtt-ms')).toBe('25');
    expect(root.getAttribute('data-window-bytes')).toBe(String(512 * 1024));
    expect(root.getAttribute('data-window-inferred')).toBe('true');
    expect(root.getAttribute('data-rate-bps')).toBe('160000000');
    expect(root.getAttribute('data-link-bps')).toBeNull();
    expect(root.getAttribute('data-verdict')).toBe('window');
  });
});

describe('DiagnosisPanel: the MPTCP connection a subflow belongs to (docs/ANALYSIS.md `mptcp[].text`)', () => {
  // mptcp-join-refused.pcap's report (wasm analysis/track/mptcp.rs `text`): the panel shows the
  // sentence as written; TypeScript only places it.
  const text = 'MPTCP connection of 3 subflows (connections 0, 1, 2): 977 KiB of data from 10.81.0.1:51244 to 10.81.0.2:5201 at 11 Mbit/s, on 2 of them. ' +
    'Subflow 2 did not join: it was reset before the join completed (MP_TCPRST reason 3: administratively prohibited).';
  const direction: MptcpConnection['directions'][0] = { from: 'a', to: 'b', dataBytes: 0, payloadBytes: 0, redundantBytes: 0, sentOnSubflows: [], dataMeanBps: 0, dataAcked: null, dataFin: false, rangesCapped: false };
  const mptcp = (id: number): MptcpConnection => ({
    id, version: 1, keys: [null, null], tokens: [null, null], start: 0, end: 0.74,
    subflows: [0, 1, 2].map((connection) => ({ connection, status: connection === 2 ? 'join-refused' : connection === 0 ? 'initial' : 'joined', addressId: connection, backup: false, resetReason: connection === 2 ? 3 : null, dataBytes: [0, 0] })),
    directions: [direction, direction],
    dataDirection: 0, addAddr: 0, removeAddr: 0, fastClose: false, mpFail: false, text,
  });

  it('every subflow of the connection shows its sentences; plain TCP shows none', () => {
    const report = { mptcp: [mptcp(0), { ...mptcp(1), text: 'another' }] };
    for (const id of [0, 1, 2]) {
      const sub: ConnectionSummary = { ...summary, id, mptcp: 0 };
      const el = render(<DiagnosisPanel summary={sub} mptcp={mptcpOf(report, sub)} />);
      const p = el.querySelector('[data-testid="mptcp-text"]')!;
      expect(p.getAttribute('data-mptcp')).toBe('0');
      expect(p.textContent).toBe(`MPTCP. ${text}`);
    }
    expect(mptcpOf(report, summary)).toBeNull(); // no connection.mptcp
    expect(mptcpOf({}, { ...summary, mptcp: 0 })).toBeNull(); // a report without the list (a share link)
    const plain = render(<DiagnosisPanel summary={summary} mptcp={mptcpOf(report, summary)} />);
    expect(plain.querySelector('[data-testid="mptcp-text"]')).toBeNull();
  });
});
