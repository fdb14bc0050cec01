// Helpers for the jsdom component tests: render into a fresh element, type into an input,
// and fixed issue-13 example summaries (docs/ANALYSIS.md).
import { act, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { ConnectionSummary, DiagnosisEvidence, DirectionSummary, Episode, PathInfo } from '../model/types';
import { directionSummary } from '../charts/fixtures';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export function render(node: ReactNode): HTMLElement {
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  act(() => root.render(node));
  return el;
}

/** Type `text` into an input the way a user does (React listens to 'input'). */
export function typeInto(input: HTMLInputElement, text: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

export const dir = (over: Partial<DirectionSummary>): DirectionSummary =>
  directionSummary({ from: '10.0.0.1:5001', to: '10.0.0.2:40000', windowScale: null, ...over });

/**
 * A receiver-side capture of a window-limited download: the data → ACK delays are the
 * receiver's local ACK delay (0.05 ms), the path RTT comes from the handshake (25 ms);
 * the window scale is unknown, so the window is the inferred lower bound 512 KiB:
 * 512 KiB × 8 / 25 ms = 168 Mbit/s cap, flow at 160 Mbit/s while active.
 */
export function receiverSide(over: {
  path?: Partial<PathInfo>; evidence?: Partial<DiagnosisEvidence>; episodes?: Episode[]; summary?: Partial<ConnectionSummary>;
} = {}): ConnectionSummary {
  const evidence: DiagnosisEvidence = {
    rttMs: 25, windowBytes: 512 * 1024, windowInferred: true, rateBps: 160e6, capBps: (512 * 1024 * 8) / 0.025,
    linkRateBps: null, verdict: 'window', ...over.evidence,
  };
  return {
    id: 7, endpoints: ['10.0.0.1:5001', '10.0.0.2:40000'], handshakeSeen: false, packets: 4000, start: 0, end: 2,
    dataDirection: 0,
    directions: [
      dir({
        payloadBytes: 30_000_000,
        rtt: { minMs: 0.02, medianMs: 0.05, p95Ms: 0.3, maxMs: 1.2, samples: 1234, excludedSamples: 12 },
        throughput: { meanBps: 120e6, activeMeanBps: 160e6, peakBps: 171e6, binSeconds: 0.01 },
      }),
      dir({ from: '10.0.0.2:40000', to: '10.0.0.1:5001', payloadBytes: 2_000, windowScaleUnknown: true, windowScaleLowerBound: 3, receiveWindow: { min: 1000, max: 65535 } }),
    ],
    vantage: 'receiver',
    pathRttMs: 25,
    pathRttMethod: 'handshake (SYN→SYN/ACK 24.9 ms + SYN/ACK→ACK 0.1 ms)',
    baseRttMs: 25,
    ...over.path,
    diagnosis: {
      limit: 'receive-window',
      text: 'The receiver advertised at least 512 KiB (window scale unknown): at 25 ms that caps the flow at 168 Mbit/s; it ran at 160 Mbit/s.',
      shares: { receiveWindow: 0.8, loss: 0, application: 0.1, stalled: 0.05, other: 0.05 },
      evidence,
      episodes: over.episodes ?? [],
    },
    ...over.summary,
  } as ConnectionSummary;
}
