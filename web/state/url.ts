// View state ⇄ URL fragment, as a pure parse/serialize pair (a permalink needs no
// server: the fragment never reaches one). Every field is validated on parse and
// anything unexpected is dropped, so a tampered link can only fall back to defaults.

import { CHART_IDS, type ChartId } from '../worker/generated/vocabulary';
import { escapeUnsafe, outsideText } from '../security/outsideText';
export { CHART_IDS, type ChartId };
export type Theme = 'auto' | 'light' | 'dark';

export type Source = { kind: 'url'; url: string } | { kind: 'example'; file: string } | null;

/** Where the compare view's side B comes from: the view's own capture, another one by
 *  address or example, a share link's second snapshot (base64url), or a local file
 *  (named only: a link cannot reopen it). */
export type CompareWith =
  | { kind: 'same' } | { kind: 'url'; url: string } | { kind: 'example'; file: string }
  | { kind: 'snapshot'; data: string } | { kind: 'file'; name: string };

/** Two connections on one time axis, each from its own first packet (web/compare). */
export interface CompareState {
  /** Connection ids: A of the view's capture, B of `with`. */
  conns: [number, number];
  with: CompareWith;
  /** Visible range, s since each connection's own start (null: both whole). */
  range: [number, number] | null;
  /** A share link's merged view of two vantage points (`twin-snap=`, base64url; issue 44):
   *  carried beside B's snapshot, since a link holds no capture to merge. */
  twin?: string;
}

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
  /** The SACK-adjusted pipe on the in-flight chart (`#pipe=1`). */
  pipe: boolean;
  theme: Theme;
  source: Source;
  /** The compare view, or null for the one-connection view (A is also `conn`). */
  compare: CompareState | null;
}

export const DEFAULT_BIN_MS = 100;
export const BIN_CHOICES_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

export const DEFAULT_VIEW: ViewState = {
  conn: null, range: null, binMs: null, stallMs: null, charts: [...CHART_IDS], pipe: false, theme: 'auto', source: null, compare: null,
};

const EXAMPLE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/;
/** What a refused `t=`/`compare-t=` and `ex=`/`compare-ex=` are told (one rule each). */
const RANGE_RULE = 'a time range is two numbers of seconds, start < end, within ±10⁹';
const EXAMPLE_RULE = 'an example is named by its file name (letters, digits, . _ -)';

/** Longest echo of user input in a message (a 1 MB link must not make a 1 MB message). */
export const MAX_ECHO_CHARS = 200;

/** `text` as a message may quote it: at most MAX_ECHO_CHARS characters. */
export function echo(text: string): string {
  // Escaped visibly (a decoded %1b in a link must not reach a terminal: `tcpscope render --view`).
  return text.length > MAX_ECHO_CHARS ? `${escapeUnsafe(text.slice(0, MAX_ECHO_CHARS))}… (${text.length.toLocaleString('en-US')} characters)` : escapeUnsafe(text);
}

function finite(text: string | null, min: number, max: number): number | null {
  if (text === null || !/^-?\d+(\.\d+)?$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/** Why `#url=` cannot name a capture, or null when it can. http: is accepted here and
 *  refused at fetch time unless same-origin (web/state/fetchCapture.ts), because only
 *  the page knows its origin. */
function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'it is not an absolute address';
  }
  if (url.protocol === 'https:' || url.protocol === 'http:') return null;
  return `only https: addresses can be opened, not ${echo(url.protocol)}`;
}

export interface ParsedView {
  view: ViewState;
  /** One line per part of the fragment that was ignored, saying why (issue 18, item 3). */
  refused: string[];
}

/** Parse `#c=1&t=0.5,2&...` (with or without the leading '#'), with what was refused. */
export function parseViewWithRefusals(fragment: string): ParsedView {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const view: ViewState = { ...DEFAULT_VIEW, charts: [...DEFAULT_VIEW.charts] };
  const refused: string[] = [];
  const refuse = (key: string, why: string) => refused.push(`#${key}=${echo(params.get(key) ?? '')} was ignored: ${why}.`);
  const number = (key: string, min: number, max: number, what: string): number | null => {
    if (!params.has(key)) return null;
    const value = finite(params.get(key), min, max);
    if (value === null) refuse(key, `${what} must be a number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`);
    return value;
  };

  const positive = (key: string, max: number, what: string): number | null => {
    if (!params.has(key)) return null;
    const value = finite(params.get(key), Number.MIN_VALUE, max);
    if (value === null) refuse(key, `${what} must be a positive number up to ${max.toLocaleString('en-US')}`);
    return value;
  };

  const conn = number('c', 0, 1e9, 'a connection number');
  if (conn !== null && Number.isInteger(conn)) view.conn = conn;
  else if (conn !== null) refuse('c', 'a connection number is a whole number');
  if (params.has('t')) {
    const range = rangeOf(params.get('t')!);
    if (range) view.range = range;
    else refuse('t', RANGE_RULE);
  }
  // Any positive bin or threshold is passed on: the view engine raises one that is too
  // small for the view and says so under the chart (wasm/src/view/request.rs).
  const bin = positive('bin', 60_000, 'a bin in ms');
  if (bin !== null) view.binMs = bin;
  const stall = positive('stall', 3_600_000, 'a stall threshold in ms');
  if (stall !== null) view.stallMs = stall;
  const charts = params.get('charts');
  if (charts !== null) {
    const asked = charts.split(',');
    const unknown = asked.filter((c) => c !== '' && !(CHART_IDS as readonly string[]).includes(c));
    const known = CHART_IDS.filter((c) => asked.includes(c));
    // Unknown ids (a typo, a chart of a later version) are dropped and the known ones
    // shown; with none known, the default charts, never an empty page (issue 45, item 11).
    // `charts=` alone is the page's own "no chart ticked" and stays so.
    if (unknown.length) {
      refused.push(`#charts: unknown chart ${echo(unknown.join(', '))} dropped; ${known.length ? `showing ${known.join(', ')}` : 'showing the default charts'} (the charts are ${CHART_IDS.join(', ')}).`);
    }
    view.charts = unknown.length && !known.length ? [...DEFAULT_VIEW.charts] : known;
  }
  const pipe = params.get('pipe');
  if (pipe === '1' || pipe === '0') view.pipe = pipe === '1';
  else if (pipe !== null) refuse('pipe', 'the SACK-adjusted pipe is shown with 1, hidden with 0');
  const theme = params.get('theme');
  if (theme === 'light' || theme === 'dark' || theme === 'auto') view.theme = theme;
  else if (theme !== null) refuse('theme', 'the theme is light, dark or auto');
  const url = params.get('url');
  const example = params.get('ex');
  const problem = url === null ? null : urlProblem(url);
  if (url !== null && problem === null) view.source = { kind: 'url', url: new URL(url).href };
  else if (url !== null) refuse('url', problem!);
  if (example !== null && view.source === null) {
    if (EXAMPLE_FILE.test(example)) view.source = { kind: 'example', file: example };
    else refuse('ex', EXAMPLE_RULE);
  }
  view.compare = parseCompare(params, refuse);
  if (view.compare) view.conn = view.compare.conns[0];
  return { view, refused };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const COMPARE_WITH_KEYS = ['compare-url', 'compare-ex', 'compare-snap', 'compare-file'] as const;

/** `compare=A,B` with its second source (`compare-url=`, `compare-ex=`, `compare-snap=`,
 *  `compare-file=`; none: the same capture) and range (`compare-t=`). */
function parseCompare(params: URLSearchParams, refuse: (key: string, why: string) => void): CompareState | null {
  const text = params.get('compare');
  const extras = [...COMPARE_WITH_KEYS, 'compare-t', 'twin-snap'].filter((k) => params.has(k));
  if (text === null) {
    for (const key of extras) refuse(key, 'it belongs to a compare view and the link has no #compare=');
    return null;
  }
  const ids = text.split(',').map((x) => (/^\d{1,9}$/.test(x) ? Number(x) : null));
  if (ids.length !== 2 || ids[0] === null || ids[1] === null) {
    refuse('compare', 'a compare view names two connection numbers, A,B');
    return null;
  }
  const compare: CompareState = { conns: [ids[0], ids[1]], with: { kind: 'same' }, range: null };
  const named = COMPARE_WITH_KEYS.filter((k) => params.has(k));
  for (const key of named.slice(1)) refuse(key, `the second capture is already named by #${named[0]}=`);
  const key = named[0];
  const value = key ? params.get(key)! : '';
  const problem = key === 'compare-url' ? urlProblem(value) : null;
  if (key === 'compare-url' && problem === null) compare.with = { kind: 'url', url: new URL(value).href };
  else if (key === 'compare-url') refuse(key, problem!);
  else if (key === 'compare-ex' && EXAMPLE_FILE.test(value)) compare.with = { kind: 'example', file: value };
  else if (key === 'compare-ex') refuse(key, EXAMPLE_RULE);
  else if (key === 'compare-snap' && BASE64URL.test(value)) compare.with = { kind: 'snapshot', data: value };
  else if (key === 'compare-snap') refuse(key, 'a snapshot is base64url (letters, digits, - and _)');
  else if (key === 'compare-file' && value.trim() !== '') compare.with = { kind: 'file', name: outsideText(value, 120) };
  else if (key === 'compare-file') refuse(key, 'a file is named by its name');
  // A second source that was refused: comparing within the first capture instead would mislead.
  if (key && compare.with.kind === 'same') return null;
  if (params.has('compare-t')) {
    const range = rangeOf(params.get('compare-t')!);
    if (range) compare.range = range;
    else refuse('compare-t', RANGE_RULE);
  }
  // The merged view a link carries (its bytes are read, and refused with a sentence, in
  // Rust: wasm/src/share/twin.rs). With captures to merge again it would be stale.
  const twin = params.get('twin-snap');
  if (twin !== null && compare.with.kind !== 'snapshot') refuse('twin-snap', 'a merged view belongs to a link that holds its two snapshots (#compare-snap=)');
  else if (twin !== null && BASE64URL.test(twin)) compare.twin = twin;
  else if (twin !== null) refuse('twin-snap', 'a merged view is base64url (letters, digits, - and _)');
  return compare;
}

/** `a,b` seconds with a < b, within ±10⁹; null otherwise. */
function rangeOf(text: string): [number, number] | null {
  const parts = text.split(',');
  const [a, b] = parts.length === 2 ? parts.map((x) => finite(x, -1e9, 1e9)) : [null, null];
  return a !== null && b !== null && b > a ? [a, b] : null;
}

/** Parse `#c=1&t=0.5,2&...` (with or without the leading '#'). */
export function parseView(fragment: string): ViewState {
  return parseViewWithRefusals(fragment).view;
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
  // A compare view names A in `compare=`, and A is the view's connection.
  if (view.conn !== null && !view.compare) params.set('c', String(view.conn));
  if (view.range) params.set('t', `${num(view.range[0])},${num(view.range[1])}`);
  if (view.compare) serializeCompare(view.compare, params);
  if (view.binMs !== null) params.set('bin', num(view.binMs));
  if (view.stallMs !== null) params.set('stall', num(view.stallMs));
  if (view.charts.length !== CHART_IDS.length) params.set('charts', view.charts.join(','));
  if (view.pipe) params.set('pipe', '1');
  if (view.theme !== 'auto') params.set('theme', view.theme);
  return params.toString().replace(/%2C/g, ',');
}

function serializeCompare(compare: CompareState, params: URLSearchParams): void {
  params.set('compare', compare.conns.join(','));
  const w = compare.with;
  if (w.kind === 'url') params.set('compare-url', w.url);
  if (w.kind === 'example') params.set('compare-ex', w.file);
  if (w.kind === 'snapshot') params.set('compare-snap', w.data);
  if (w.kind === 'file') params.set('compare-file', w.name);
  if (compare.range) params.set('compare-t', `${num(compare.range[0])},${num(compare.range[1])}`);
  if (compare.twin) params.set('twin-snap', compare.twin);
}
