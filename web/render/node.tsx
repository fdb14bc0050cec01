// Node entry of the static renderer: bundled by vite.render.config.ts into
// build/render/render.mjs, which `tcpscope render` (cli/render.mjs) imports. It gives
// the page's chart code a DOM (jsdom, with charts.css applied so the export's computed
// styles carry the theme's colours) and a ViewSource over the CLI's wasm session, then
// renders through web/render/renderChart.tsx — the page's stack and its SVG export.
//
// The DOM is installed before React and D3 are loaded (a dynamic import): react-dom
// decides at load time whether it runs in a browser.
import { JSDOM } from 'jsdom';
import chartsCss from '../charts/charts.css?raw';
import { CHART_IDS } from '../charts/frame';
import { largestConnection } from '../components/ConnectionTable';
import { parseViewWithRefusals } from '../state/url';
import { sessionSource, type Engine } from '../worker/sessionSource';
import type { Figure } from './renderChart';
import type { TwinFigure } from './renderTwin';

/** For the CLI's options: the stack's chart ids, the page's default connection, its permalink parser. */
export { CHART_IDS, largestConnection, parseViewWithRefusals };

let installed = false;

/** jsdom's window as the globals browser code expects (once per process). */
function installDom(): void {
  if (installed) return;
  installed = true;
  const { window } = new JSDOM(`<!doctype html><html><head><style>${chartsCss}</style></head><body></body></html>`);
  const globals = globalThis as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(window)) {
    if (key in globals) continue;
    let value: unknown;
    try {
      value = (window as unknown as Record<string, unknown>)[key];
    } catch {
      continue; // localStorage and the like refuse an opaque origin: the charts use none of them
    }
    // Methods (getComputedStyle, addEventListener) need the window as `this`; classes do not.
    globals[key] = typeof value === 'function' && /^[a-z]/.test(key) ? value.bind(window) : value;
  }
  // No animation frames here: charts draw at once (charts/useD3.ts), but their
  // clean-ups cancel a frame unconditionally.
  globals.cancelAnimationFrame = () => {};
  globals.window = window;
  globals.document = window.document;
}

export type RenderFigure = Omit<Figure, 'source'> & { session: Engine };

/** The merged view's one-way delay charts of one pair (renderTwin.tsx), as the page's export writes them. */
export async function renderTwinSvg(figure: TwinFigure): Promise<string> {
  installDom();
  const { renderTwinSvg: render } = await import('./renderTwin');
  return render(figure);
}

/** The standalone SVG of one chart, exactly as the page's export writes it. */
export async function renderSvg(figure: RenderFigure): Promise<string> {
  installDom();
  const { renderChartSvg } = await import('./renderChart');
  const { session, ...rest } = figure;
  return renderChartSvg({ ...rest, source: sessionSource(session) });
}
