// View state ⇄ URL fragment, as a pure parse/serialize pair (a permalink needs no
// server: the fragment never reaches one). Every field is validated on parse and
// anything unexpected is dropped, so a tampered link can only fall back to defaults.

export const CHART_IDS = ['throughput', 'inflight', 'stalls', 'sequence', 'rtt'] as const;
export type ChartId = (typeof CHART_IDS)[number];
export type Theme = 'auto' | 'light' | 'dark';

export type Source = { kind: 'url'; url: string } | { kind: 'example'; file: string } | null;

export interface ViewState {
  /** Selected connection id (null: the largest). */
  conn: number | null;
  /** Visible time range in seconds since the first packet (null: everything). */
  range: [number, number] | null;
  /** Throughput bin, ms; null = the connection's own (the summary's `binSeconds`). */
  binMs: number | null;
  /** Stall threshold in ms (null: DESIGN.md default, max(10 ms, 4 × min RTT)). */
  stallMs: number | null;
  charts: ChartId[];
  theme: Theme;
  source: Source;
}

export const DEFAULT_BIN_MS = 100;
export const BIN_CHOICES_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

export const DEFAULT_VIEW: ViewState = {
  conn: null, range: null, binMs: null, stallMs: null, charts: [...CHART_IDS], theme: 'auto', source: null,
};

const EXAMPLE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/;

function finite(text: string | null, min: number, max: number): number | null {
  if (text === null || !/^-?\d+(\.\d+)?$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

function httpUrl(text: string | null): string | null {
  if (!text) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Parse `#c=1&t=0.5,2&...` (with or without the leading '#'). */
export function parseView(fragment: string): ViewState {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const view: ViewState = { ...DEFAULT_VIEW, charts: [...DEFAULT_VIEW.charts] };
  const conn = finite(params.get('c'), 0, 1e9);
  if (conn !== null && Number.isInteger(conn)) view.conn = conn;
  const range = params.get('t')?.split(',');
  if (range?.length === 2) {
    const [a, b] = range.map((x) => finite(x, -1e9, 1e9));
    if (a !== null && b !== null && b > a) view.range = [a, b];
  }
  const bin = finite(params.get('bin'), 0.001, 60_000);
  if (bin !== null) view.binMs = bin;
  const stall = finite(params.get('stall'), 0.001, 3_600_000);
  if (stall !== null) view.stallMs = stall;
  const charts = params.get('charts');
  if (charts !== null) {
    const wanted = charts.split(',').filter((c): c is ChartId => (CHART_IDS as readonly string[]).includes(c));
    view.charts = CHART_IDS.filter((c) => wanted.includes(c));
  }
  const theme = params.get('theme');
  if (theme === 'light' || theme === 'dark') view.theme = theme;
  const url = httpUrl(params.get('url'));
  const example = params.get('ex');
  if (url) view.source = { kind: 'url', url };
  else if (example && EXAMPLE_FILE.test(example)) view.source = { kind: 'example', file: example };
  return view;
}

/** Shortest decimal that survives a round trip at µs precision. */
const micro = (x: number) => Math.round(x * 1e6) / 1e6;
function num(x: number): string {
  return String(micro(x));
}

/**
 * The range as the address bar stores it (µs): the page draws exactly this range, so
 * a link (or a snapshot made from it) reproduces the picture to the pixel column.
 */
export function linkRange(r: [number, number] | null): [number, number] | null {
  if (!r) return null;
  const [a, b] = [micro(r[0]), micro(r[1])];
  return b > a ? [a, b] : r;
}

/** Serialize to a fragment without '#'; defaults are omitted to keep links short. */
export function serializeView(view: ViewState): string {
  const params = new URLSearchParams();
  if (view.source?.kind === 'url') params.set('url', view.source.url);
  if (view.source?.kind === 'example') params.set('ex', view.source.file);
  if (view.conn !== null) params.set('c', String(view.conn));
  if (view.range) params.set('t', `${num(view.range[0])},${num(view.range[1])}`);
  if (view.binMs !== null) params.set('bin', num(view.binMs));
  if (view.stallMs !== null) params.set('stall', num(view.stallMs));
  if (view.charts.length !== CHART_IDS.length) params.set('charts', view.charts.join(','));
  if (view.theme !== 'auto') params.set('theme', view.theme);
  return params.toString().replace(/%2C/g, ',');
}
