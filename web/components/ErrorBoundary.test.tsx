// @vitest-environment jsdom
// A part that throws says why in its own box; its neighbours keep working.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, useState } from 'react';
import { ErrorBoundary } from './ErrorBoundary';
import { render } from './testUtil';

function Broken({ message }: { message: string }): never {
  throw new Error(message);
}

describe('ErrorBoundary', () => {
  // React logs caught render errors to console.error; keep the test output readable.
  let spy: ReturnType<typeof vi.spyOn>;
  beforeEach(() => { spy = vi.spyOn(console, 'error').mockImplementation(() => undefined); });
  afterEach(() => spy.mockRestore());

  it('shows "This chart could not be drawn: <message>" in the broken box only', () => {
    const onError = vi.fn();
    const el = render(
      <div>
        <figure data-chart="throughput">
          <ErrorBoundary what="chart" onError={onError}><Broken message="bins: negative width" /></ErrorBoundary>
        </figure>
        <figure data-chart="rtt">
          <ErrorBoundary what="chart"><p data-testid="fine">drawn</p></ErrorBoundary>
        </figure>
      </div>,
    );
    const box = el.querySelector('figure[data-chart="throughput"] [data-testid="render-error"]')!;
    expect(box.getAttribute('role')).toBe('alert');
    expect(box.textContent).toContain('This chart could not be drawn: bins: negative width');
    expect(el.querySelector('figure[data-chart="rtt"] [data-testid="fine"]')!.textContent).toBe('drawn');
    expect(el.querySelector('figure[data-chart="rtt"] [data-testid="render-error"]')).toBeNull();
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0][0].message).toBe('bins: negative width');
  });

  it('non-Error throws, a custom fallback, and a fresh try on new data', () => {
    function Thrower(): never {
      throw 'plain string'; // eslint-disable-line no-throw-literal
    }
    const el = render(<ErrorBoundary><Thrower /></ErrorBoundary>);
    expect(el.textContent).toContain('This part of the page could not be drawn: plain string');
    const custom = render(<ErrorBoundary fallback={(e) => <em>{`custom: ${e.message}`}</em>}><Broken message="x" /></ErrorBoundary>);
    expect(custom.textContent).toBe('custom: x');

    let setData: (n: number) => void = () => undefined;
    function Host() {
      const [n, set] = useState(0);
      setData = set;
      return (
        <ErrorBoundary what="chart" resetKey={n}>
          {n === 0 ? <Broken message="bad data" /> : <span data-testid="ok">data {n}</span>}
        </ErrorBoundary>
      );
    }
    const host = render(<Host />);
    expect(host.textContent).toContain('could not be drawn: bad data');
    act(() => setData(1));
    expect(host.querySelector('[data-testid="ok"]')!.textContent).toBe('data 1');
  });
});
