// @vitest-environment jsdom
// The time-sequence chart of each capture of a twin recording (issue 44 item 3), drawn
// from the engine's own merge of twin-forward-loss (wasm `WasmTwin`, as the page's
// twin.worker runs it): the sender side sees the server's 1,722 data datagrams, 47 of
// them resends; the receiver side the 1,675 that arrived; the emulator's 47 drops are
// crosses where they left and dashed rings where they never arrived
// (wasm/tests/twin_sequence.rs says why each number is right).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initSync, WasmTwin } from 'tcpscope-wasm';
import type { TwinReport } from '../worker/generated/view';
import { newSvg } from '../charts/testUtil';
import { fullRange } from '../charts/timeRange';
import { drawTwinSequence, marksOn, type TwinCapture } from './TwinSequenceChart';

const root = `${process.cwd()}/`;
initSync({ module: readFileSync(`${root}wasm/pkg/tcpscope_core_bg.wasm`) });
const twin = new WasmTwin(Number.NaN);
twin.push(0, readFileSync(`${root}public/examples/twin-forward-loss.pcap`));
twin.push(1, readFileSync(`${root}public/examples/twin-forward-loss-server.pcap`));
const report: TwinReport = JSON.parse(twin.finish());
twin.free();
const pair = report.pairs[0];
const full = fullRange(pair.sequence!.start, 5.5);
const view = { range: full, full, width: 900, height: 260 };

function drawn(capture: TwinCapture): SVGSVGElement {
  const svg = newSvg();
  drawTwinSequence(svg, { capture, pair, name: capture === 'sender-side' ? 'twin-forward-loss-server.pcap' : 'twin-forward-loss.pcap' }, view);
  return svg;
}
const marks = (svg: SVGSVGElement, seen: string, direction = 0) =>
  Number(svg.querySelector(`path[data-kind="lost-between"][data-direction="${direction}"][data-seen="${seen}"]`)?.getAttribute('data-count') ?? 0);

describe('twin time-sequence chart', () => {
  it('draws each capture\'s own datagrams and says so in words', () => {
    const [sender, receiver] = [drawn('sender-side'), drawn('receiver-side')];
    for (const svg of [sender, receiver]) {
      expect(svg.getAttribute('data-chart')).toBe('twin-sequence');
      expect(svg.getAttribute('role')).toBe('img');
      expect(svg.dataset.state).toBe('ready');
    }
    expect(sender.querySelector('path.tcps-segments')!.getAttribute('data-bins')).toBe(String(pair.sequence!.senderSide.bins.length));
    expect(sender.getAttribute('aria-label')).toMatch(/^Time-sequence at the sender side: 10\.77\.0\.1:9231 → 10\.77\.0\.2:\d+\. .*1,722 data datagrams, 47 of them resends, in 449 bins of 5\.4 ms; the receiver's cumulative ACK\. Marks: 47 lost between: seen leaving \(data\)\.$/);
    expect(receiver.getAttribute('aria-label')).toMatch(/1,675 data datagrams, 47 of them resends, .*Marks: 47 lost between: never arrived \(data\)\.$/);
  });

  it('marks the 47 drops where they left and where they never arrived', () => {
    const [sender, receiver] = [drawn('sender-side'), drawn('receiver-side')];
    expect([marks(sender, 'here'), marks(sender, 'absent'), marks(receiver, 'here'), marks(receiver, 'absent')]).toEqual([47, 0, 0, 47]);
    expect([marks(sender, 'here', 1), marks(receiver, 'absent', 1)]).toEqual([0, 0]);
    // On the receiver side each sits at its due time (sent + the 10.056 ms forward floor).
    const lostEvents = pair.events.filter((e) => e.kind === 'lost-between');
    const ringed = marksOn('receiver-side', pair.events);
    expect(ringed.map((m) => m.t)).toEqual(lostEvents.map((e) => e.due));
    expect(ringed.every((m, k) => m.absent && Math.abs(m.t - lostEvents[k].t - 0.010056) < 1e-9)).toBe(true);
  });
});
