import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, parseView, parseViewWithRefusals, serializeView, type ViewState } from './url';

const view = (patch: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, charts: [...DEFAULT_VIEW.charts], ...patch });

// [fragment, the view it means]; every row must also round-trip through serializeView.
const table: [string, ViewState][] = [
  ['', view({})],
  ['c=3', view({ conn: 3 })],
  ['c=0&t=0.5,1.25', view({ conn: 0, range: [0.5, 1.25] })],
  ['bin=10&stall=25', view({ binMs: 10, stallMs: 25 })],
  ['charts=throughput,rtt', view({ charts: ['throughput', 'rtt'] })],
  ['charts=inflight,events', view({ charts: ['inflight', 'events'] })],
  // The SACK-adjusted pipe line on the in-flight chart (off by default, issue 17 item 7).
  ['pipe=1', view({ pipe: true })],
  ['theme=dark', view({ theme: 'dark' })],
  ['ex=rwnd-limited.pcap&c=1', view({ source: { kind: 'example', file: 'rwnd-limited.pcap' }, conn: 1 })],
  ['url=https%3A%2F%2Fexample.org%2Fa.pcap', view({ source: { kind: 'url', url: 'https://example.org/a.pcap' } })],
];

describe('URL state', () => {
  it.each(table)('parses %j', (fragment, expected) => {
    expect(parseView(fragment)).toEqual(expected);
    expect(parseView('#' + fragment)).toEqual(expected);
  });

  it.each(table)('serializes back to %j', (fragment, state) => {
    expect(serializeView(state)).toBe(fragment);
  });

  // Tampered or hostile fragments fall back to defaults field by field.
  const hostile: [string, Partial<ViewState>][] = [
    ['c=-1', {}],
    ['c=1.5', {}],
    ['c=abc', {}],
    ['t=2,1', {}],
    ['t=1', {}],
    ['t=NaN,Infinity', {}],
    ['bin=0', {}],
    ['stall=1e9999', {}],
    ['charts=throughput,<script>', { charts: ['throughput'] }],
    ['theme=<img src=x>', {}],
    ['pipe=yes', {}],
    ['url=javascript:alert(1)', {}],
    ['ex=../../etc/passwd', {}],
    ['ex=<b>.pcap', {}],
  ];
  it.each(hostile)('ignores the invalid parts of %j', (fragment, patch) => {
    expect(parseView(fragment)).toEqual(view(patch));
  });

  it('keeps µs precision and drops float noise', () => {
    expect(serializeView(view({ range: [0.1 + 0.2, 1.0000004] }))).toBe('t=0.3,1');
  });
});

describe('refused inputs say why, in one line (issue 18, item 3)', () => {
  it.each([
    ['url=javascript%3Aalert(1)', '#url=javascript:alert(1) was ignored: only https: addresses can be opened, not javascript:.'],
    ['url=data%3Atext%2Fplain%2Cx', '#url=data:text/plain,x was ignored: only https: addresses can be opened, not data:.'],
    ['url=file%3A%2F%2F%2Fetc%2Fpasswd', '#url=file:///etc/passwd was ignored: only https: addresses can be opened, not file:.'],
    ['url=nonsense', '#url=nonsense was ignored: it is not an absolute address.'],
    ['ex=..%2Fsecret', '#ex=../secret was ignored: an example is named by its file name (letters, digits, . _ -).'],
    ['bin=0', '#bin=0 was ignored: a bin in ms must be a positive number up to 60,000.'],
    ['stall=-5', '#stall=-5 was ignored: a stall threshold in ms must be a positive number up to 3,600,000.'],
    ['t=5,1', '#t=5,1 was ignored: a time range is two numbers of seconds, start < end, within ±10⁹.'],
    ['charts=throughput,pie', '#charts: unknown chart pie dropped; showing throughput (the charts are throughput, inflight, stalls, sequence, rtt, events, wifi).'],
    ['pipe=2', '#pipe=2 was ignored: the SACK-adjusted pipe is shown with 1, hidden with 0.'],
    ['theme=neon', '#theme=neon was ignored: the theme is light, dark or auto.'],
  ])('%s', (fragment, message) => {
    expect(parseViewWithRefusals(fragment).refused).toEqual([message]);
  });

  it('a good link refuses nothing', () => {
    for (const [fragment] of table) expect(parseViewWithRefusals(fragment).refused).toEqual([]);
  });

  it('echoes at most 200 characters of a 1 MB #url=', () => {
    const [message] = parseViewWithRefusals(`url=javascript:${'x'.repeat(1_000_000)}`).refused;
    expect(message.length).toBeLessThan(400);
  });
});

describe('hostile links, round three (issue 45)', () => {
  it('11. an unknown chart id shows the default charts, not none, and says so', () => {
    const { view, refused } = parseViewWithRefusals('charts=zzz');
    expect(view.charts).toEqual(DEFAULT_VIEW.charts);
    expect(refused).toEqual(['#charts: unknown chart zzz dropped; showing the default charts (the charts are throughput, inflight, stalls, sequence, rtt, events, wifi).']);
    // The address is not rewritten to an empty `charts=`.
    expect(serializeView(view)).not.toContain('charts=');
    expect(parseView('charts=rtt,chart-of-v9').charts).toEqual(['rtt']);
    expect(parseView('charts=').charts).toEqual([]);
  });

  it('12. a #compare-file= name cannot reverse the page: bidi controls escaped, length capped', () => {
    const compare = parseView(`compare=1,2&compare-file=${encodeURIComponent('\u202Egnp.exe Safari')}`).compare;
    expect(compare?.with).toEqual({ kind: 'file', name: '\\u{202E}gnp.exe Safari' });
    const long = parseView(`compare=1,2&compare-file=${'A'.repeat(60_000)}`).compare;
    expect(long?.with.kind === 'file' && Array.from(long.with.name).length).toBe(120);
  });

  it('1. a refusal echoes decoded escapes visibly (render --view prints it on a terminal)', () => {
    const [line] = parseViewWithRefusals('theme=%1b[2J%1b]0;owned%07').refused;
    expect(line).toBe('#theme=\\x1b[2J\\x1b]0;owned\\x07 was ignored: the theme is light, dark or auto.');
  });
});
