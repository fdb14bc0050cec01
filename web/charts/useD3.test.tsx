// @vitest-environment jsdom
// A chart draws at most once per frame while on screen; out of view it waits for the
// range to settle, for its scroll into view, or for an export (flushDeferredDraws).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { DEFERRED_DRAW_MS, flushDeferredDraws, inThisFrame, useD3 } from './useD3';
import './testUtil';

/** IntersectionObserver stand-in: the test says when the chart enters or leaves the viewport. */
let report: (visible: boolean) => void = () => {};
class FakeObserver {
  constructor(private readonly callback: IntersectionObserverCallback) {}
  observe() {
    report = (visible) => this.callback([{ isIntersecting: visible } as IntersectionObserverEntry], this as unknown as IntersectionObserver);
  }
  disconnect() {}
}

/** Animation frames run when the test says. */
let frames: FrameRequestCallback[] = [];
const runFrame = () => act(() => { const due = frames; frames = []; due.forEach((f) => f(0)); });

const drawn: number[] = [];
function Chart({ t0 }: { t0: number }) {
  const ref = useD3((svg) => {
    drawn.push(t0);
    if (!svg.hasChildNodes()) svg.append(document.createElementNS('http://www.w3.org/2000/svg', 'g'));
  }, [t0]);
  return <svg ref={ref} />;
}

describe('useD3', () => {
  let root: Root;
  beforeEach(() => {
    vi.useFakeTimers();
    drawn.length = 0;
    frames = [];
    vi.stubGlobal('IntersectionObserver', FakeObserver);
    vi.stubGlobal('requestAnimationFrame', (f: FrameRequestCallback) => frames.push(f));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    // Idle time comes at once here (the browser gives it between frames).
    vi.stubGlobal('requestIdleCallback', (f: IdleRequestCallback) => { f({ didTimeout: false, timeRemaining: () => 10 }); return 1; });
    vi.stubGlobal('cancelIdleCallback', () => {});
    root = createRoot(document.createElement('div'));
  });
  afterEach(() => {
    act(() => root.unmount());
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('draws at once the first time, then once per frame while on screen', () => {
    act(() => root.render(<Chart t0={1} />));
    expect(drawn).toEqual([1]); // never an empty chart
    act(() => root.render(<Chart t0={2} />));
    act(() => root.render(<Chart t0={3} />));
    expect(drawn).toEqual([1]);
    runFrame();
    expect(drawn).toEqual([1, 3]); // two ranges in one frame: one draw, of the latest
  });

  /** A gesture frame: the range rendered synchronously, as useGestureRange does. */
  const gesture = (t0: number) => inThisFrame(() => flushSync(() => root.render(<Chart t0={t0} />)));

  it('out of view during a gesture, draws the latest range once it has been still, or at once when scrolled into view', () => {
    act(() => root.render(<Chart t0={1} />));
    act(() => report(false));
    for (const t0 of [2, 3, 4]) {
      gesture(t0);
      act(() => vi.advanceTimersByTime(DEFERRED_DRAW_MS / 2)); // a gesture: every frame a new range
      runFrame();
    }
    expect(drawn).toEqual([1]);
    act(() => vi.advanceTimersByTime(DEFERRED_DRAW_MS));
    expect(drawn).toEqual([1, 4]);

    gesture(5);
    act(() => report(true));
    runFrame();
    expect(drawn).toEqual([1, 4, 5]);
    act(() => vi.advanceTimersByTime(DEFERRED_DRAW_MS));
    expect(drawn).toEqual([1, 4, 5]); // drawn once, not again by the timer
  });

  it('a range rendered in an animation frame (a gesture) draws in that frame', () => {
    act(() => root.render(<Chart t0={1} />));
    gesture(2);
    expect(drawn).toEqual([1, 2]);
    expect(frames).toEqual([]); // no second frame asked
  });

  it('out of view but with no gesture under way (an answer after the load), draws in the next frame: ready means drawn', () => {
    act(() => root.render(<Chart t0={1} />));
    act(() => report(false));
    act(() => vi.advanceTimersByTime(DEFERRED_DRAW_MS)); // the last gesture is long past
    act(() => root.render(<Chart t0={2} />));
    runFrame();
    expect(drawn).toEqual([1, 2]);
  });

  it('an export brings a chart out of view up to date first', () => {
    act(() => root.render(<Chart t0={1} />));
    act(() => report(false));
    gesture(2);
    expect(drawn).toEqual([1]);
    flushDeferredDraws();
    expect(drawn).toEqual([1, 2]);
  });
});
