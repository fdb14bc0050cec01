// @vitest-environment jsdom
// The table's payload is the data direction's, not the sum of both (issue 13 item 6);
// rows come one page at a time from a table source, searched by endpoint text (issue 16).
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ConnectionTable, dataPayload, largestConnection, summaryTable } from './ConnectionTable';
import type { ConnectionSummary } from '../model/types';
import type { TablePage, TableQuery } from '../worker/generated/view';
import { engineFor } from '../charts/testEngine';
import { ask } from '../worker/ask.mjs';
import { dir, receiverSide, render, typeInto } from './testUtil';

/** Lets the table's page queries (promises) settle. */
const settle = () => act(async () => { await vi.advanceTimersByTimeAsync(200); });

// A download: 30 MB (29 MiB) from the server (direction 1), 900 kB of requests up (direction 0).
const download = receiverSide({
  summary: {
    id: 1, dataDirection: 1,
    directions: [dir({ from: 'c:1', to: 's:2', payloadBytes: 900_000 }), dir({ from: 's:2', to: 'c:1', payloadBytes: 30_000_000 })],
  },
});
// An upload whose data direction carried 20 MB (19 MiB), both directions 20.5 MB (20 MiB).
const upload = receiverSide({
  summary: {
    id: 2, dataDirection: 0,
    directions: [dir({ from: 'c:3', to: 's:4', payloadBytes: 20_000_000 }), dir({ from: 's:4', to: 'c:3', payloadBytes: 500_000 })],
  },
});

describe('ConnectionTable', () => {
  it("a share link's stall count is the analysis's even where the link lists fewer stalls (stallCount)", async () => {
    vi.useFakeTimers();
    const d = download.directions[1];
    const linked = { ...download, directions: [download.directions[0], { ...d, stalls: [], stallCount: 119 }] } as typeof download;
    const el = render(<ConnectionTable source={summaryTable([linked])} selected={null} onSelect={() => undefined} />);
    await settle();
    expect([...el.querySelectorAll('tr[data-connection="1"] td')].map((td) => td.textContent)[5]).toBe('119');
    vi.useRealTimers();
  });

  it("a share link's table says its connection is shared, not that the capture had one", async () => {
    vi.useFakeTimers();
    const el = render(<ConnectionTable source={summaryTable([download])} selected={null} onSelect={() => undefined} shared />);
    await settle();
    expect(el.querySelector('[data-testid="connection-count"]')!.textContent).toBe('1 shared connection (a link holds one connection of its capture)');
    vi.useRealTimers();
  });

  it('"Data payload" is the data direction\'s payload', async () => {
    vi.useFakeTimers();
    expect(dataPayload(download)).toBe(30_000_000);
    const el = render(<ConnectionTable source={summaryTable([upload, download])} selected={null} onSelect={() => undefined} />);
    await settle();
    const headers = [...el.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headers).toContain('Data payload ▾');
    const cells = (id: number) => [...el.querySelectorAll(`tr[data-connection="${id}"] td`)].map((td) => td.textContent);
    expect(cells(1)[1]).toContain('s:2 → c:1');
    expect(cells(1)[2]).toBe('29 MiB'); // data a connection carries: IEC, as the diagnosis writes it (format.mjs)
    expect(cells(2)[2]).toBe('19 MiB'); // not 20 MiB (both directions)
    expect(cells(1)[5]).toBe('0');
    // Sorted by data payload, largest first.
    expect([...el.querySelectorAll('tbody tr')].map((tr) => tr.getAttribute('data-connection'))).toEqual(['1', '2']);
    // Searching by endpoint text keeps the matching rows only.
    typeInto(el.querySelector('[data-testid="connection-search"]') as HTMLInputElement, 'c:3');
    await settle();
    expect([...el.querySelectorAll('tbody tr')].map((tr) => tr.getAttribute('data-connection'))).toEqual(['2']);
    expect(el.querySelector('[data-testid="connection-count"]')!.textContent).toBe('2 TCP connections, 1 matching “c:3”');
    vi.useRealTimers();
  });

  it('renders only the rows in view of a long table', async () => {
    vi.useFakeTimers();
    const many = Array.from({ length: 5000 }, (_, i) => ({ ...download, id: i }) as ConnectionSummary);
    const el = render(<ConnectionTable source={summaryTable(many)} selected={null} onSelect={() => undefined} />);
    await settle();
    const rendered = el.querySelectorAll('tbody tr').length;
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(50); // a screenful and the overscan, not 5000
    vi.useRealTimers();
  });

  it('⇆ on a row compares the selected connection with it, without selecting the row (web/compare)', async () => {
    vi.useFakeTimers();
    const onSelect = vi.fn(), onCompare = vi.fn();
    const el = render(<ConnectionTable source={summaryTable([upload, download])} selected={1} onSelect={onSelect} onCompare={onCompare} />);
    await settle();
    const button = (id: number) => el.querySelector<HTMLButtonElement>(`tr[data-connection="${id}"] [data-testid="compare-row"]`)!;
    expect(button(1).disabled).toBe(true); // not with itself
    act(() => button(2).click());
    expect(onCompare).toHaveBeenCalledWith(2);
    expect(onSelect).not.toHaveBeenCalled();
    vi.useRealTimers();
  });

  it('"Ended" shows how each connection ended, in the words the report gives (wasm analysis/track/ending.rs)', async () => {
    vi.useFakeTimers();
    // Only `words` is read; the rest is what the report would say of such a reset.
    const reset = {
      kind: 'reset', words: 'reset by server', abnormal: true, finAt: [null, null], firstFin: null,
      reset: { by: 1, at: 3.21, frame: 40, after: 'own-data' }, resets: [0, 2], tlsAlert: null, unacknowledgedBytes: [0, 24647], sackedBytes: [0, 0],
      text: 'The connection was reset by s:2 at 3.210 s, with 24 KiB (24,647 bytes) it had sent never acknowledged.',
    } as const;
    const ended = { ...download, ending: reset } as ConnectionSummary;
    const el = render(<ConnectionTable source={summaryTable([ended, upload])} selected={null} onSelect={() => undefined} />);
    await settle();
    const headers = [...el.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headers[7]).toBe('Ended');
    const cell = (id: number) => el.querySelector(`tr[data-connection="${id}"] [data-testid="ended"]`)!.textContent;
    expect(cell(1)).toBe('reset by server');
    // A report without the field (a share link, an older snapshot): an empty cell.
    expect(cell(2)).toBe('');
    vi.useRealTimers();
  });

  it('the connection shown first is the one whose data direction carried most', () => {
    const chatty = { ...upload, id: 3, directions: [dir({ payloadBytes: 16_000_000 }), dir({ payloadBytes: 15_000_000 })] } as ConnectionSummary;
    expect(largestConnection([chatty, upload])!.id).toBe(2); // 20 MB > 16 MB, though 31 MB in total
  });

  it('an MPTCP connection is one row whose ▸ lists its subflows (table.rs `expanded`)', async () => {
    vi.useFakeTimers();
    const row = (id: number, subflows: number) => ({ id, from: `c:${id}`, to: 's:80', start: 0, duration: 1, bytes: 1000, retransmissions: 0,
      stalls: 0, limit: 'path', ended: 'FIN', mptcp: 0, subflows });
    const asked: (number[] | undefined)[] = [];
    const source = async (q: { expanded?: number[]; offset: number }) => {
      asked.push(q.expanded);
      const rows = q.expanded?.includes(0) ? [row(0, 3), row(0, 0), row(1, 0), row(2, 0)] : [row(0, 3)];
      return { total: 3, matched: rows.length, offset: q.offset, rows };
    };
    const el = render(<ConnectionTable source={source} selected={0} onSelect={() => undefined} />);
    await settle();
    const shown = () => [...el.querySelectorAll('tbody tr')].map((tr) => tr.getAttribute('data-connection'));
    expect(shown()).toEqual(['0']);
    expect(el.querySelector('tbody tr')!.className).toBe('selected');
    const toggle = el.querySelector<HTMLButtonElement>('[data-testid="mptcp-toggle"]')!;
    expect(toggle.textContent).toBe('▸ MPTCP · 3 subflows');
    await act(async () => { toggle.click(); });
    await settle();
    expect(asked.at(-1)).toEqual([0]);
    // Every subflow under the MPTCP connection's row, the first one too.
    expect(shown()).toEqual(['0', '0', '1', '2']);
    expect(el.querySelector('tr[data-connection="1"]')!.className).toBe('subflow');
    // Selected is the first subflow's own row now, not the connection's.
    expect([...el.querySelectorAll('tbody tr')].map((tr) => tr.className)).toEqual(['', 'selected subflow', 'subflow', 'subflow']);
    vi.useRealTimers();
  });

  it("an MPTCP connection's row shows the connection's numbers, from the real table (table.rs on mptcp-two-paths.pcap)", async () => {
    vi.useFakeTimers();
    const { session } = engineFor('mptcp-two-paths.pcap');
    const source = async (query: TableQuery) => ask(session, { ask: 'table', query });
    const el = render(<ConnectionTable source={source} selected={null} onSelect={() => undefined} />);
    await settle();
    const cells = (tr: Element) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent);
    const [group] = el.querySelectorAll('tbody tr');
    // The 4,000,000 bytes the client wrote, each once over three subflows (docs/ANALYSIS.md
    // `mptcp[].directions[].dataBytes`), at their mean rate over the MPTCP connection's
    // 1.668 s: 4,000,000 × 8 / 1.668 s = 19.2 Mbit/s (`dataMeanBps` 19,183,042; shown "19"); not the
    // first subflow's 2.6 MB (2.5 MiB).
    expect(group.getAttribute('data-mptcp-connection')).toBe('0');
    expect(cells(group)).toEqual(['0', '▸ MPTCP · 3 subflows 10.81.0.1:43506 → 10.81.0.2:5201', '3.8 MiB · 19 Mbit/s', '1.7 s']);
    await act(async () => { el.querySelector<HTMLButtonElement>('[data-testid="mptcp-toggle"]')!.click(); });
    await settle();
    // Each subflow with its own payload (resends included) and no connection rate.
    const rows = [...el.querySelectorAll('tbody tr')];
    expect(rows.map((tr) => tr.querySelector('[data-testid="bytes"]')!.textContent)).toEqual(['3.8 MiB · 19 Mbit/s', '2.5 MiB', '660 KiB', '723 KiB']);
    expect(el.querySelectorAll('[data-testid="mptcp-rate"]').length).toBe(1);
    session.free();
    vi.useRealTimers();
  });
});
