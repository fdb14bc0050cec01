// The compare view's part of the permalink (issue 17 item 9): `compare=A,B` with the
// second capture (`compare-url=`, `compare-ex=`, `compare-snap=`, `compare-file=`; none
// = the same capture) and the range from each connection's start (`compare-t=`).
import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, parseView, parseViewWithRefusals, serializeView, type CompareState, type ViewState } from './url';

const view = (patch: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, charts: [...DEFAULT_VIEW.charts], ...patch });
const compare = (conns: [number, number], patch: Partial<CompareState> = {}): CompareState => ({ conns, with: { kind: 'same' }, range: null, ...patch });

// [fragment, the view it means]; each row round-trips through serializeView. A is also
// the view's connection, so leaving compare keeps it selected.
const table: [string, ViewState][] = [
  ['ex=healthy.pcap&compare=0,1', view({ source: { kind: 'example', file: 'healthy.pcap' }, conn: 0, compare: compare([0, 1]) })],
  ['ex=healthy.pcap&compare=0,1&compare-ex=rwnd-limited.pcap&compare-t=0.25,1.5',
    view({ source: { kind: 'example', file: 'healthy.pcap' }, conn: 0, compare: compare([0, 1], { with: { kind: 'example', file: 'rwnd-limited.pcap' }, range: [0.25, 1.5] }) })],
  ['url=https%3A%2F%2Fexample.org%2Fa.pcap&compare=2,3&compare-url=https%3A%2F%2Fexample.org%2Fb.pcap&bin=10',
    view({ source: { kind: 'url', url: 'https://example.org/a.pcap' }, conn: 2, binMs: 10, compare: compare([2, 3], { with: { kind: 'url', url: 'https://example.org/b.pcap' } }) })],
  ['compare=0,0&compare-snap=VENQUwI_-x', view({ conn: 0, compare: compare([0, 0], { with: { kind: 'snapshot', data: 'VENQUwI_-x' } }) })],
  // A link's merged view of two vantage points (issue 44) rides with B's snapshot.
  ['compare=0,0&compare-snap=VENQUwI_-x&compare-t=0,1&twin-snap=VENQVAE', view({ conn: 0, compare: compare([0, 0], { with: { kind: 'snapshot', data: 'VENQUwI_-x' }, range: [0, 1], twin: 'VENQVAE' }) })],
  ['compare=4,1&compare-file=after.pcap&compare-t=-0.01,2', view({ conn: 4, compare: compare([4, 1], { with: { kind: 'file', name: 'after.pcap' }, range: [-0.01, 2] }) })],
];

describe('compare in the URL state', () => {
  it.each(table)('parses %j', (fragment, expected) => {
    expect(parseViewWithRefusals(fragment)).toEqual({ view: expected, refused: [] });
  });

  it.each(table)('serializes back to %j', (fragment, state) => {
    expect(serializeView(state)).toBe(fragment);
  });

  it('A of compare= wins over c= (one link, one selection)', () => {
    expect(parseView('c=7&compare=2,3').conn).toBe(2);
  });

  it('leaving compare keeps A selected and the normal view\'s own range', () => {
    const v = parseView('ex=healthy.pcap&t=0.1,0.2&compare=1,0&compare-t=0,1');
    expect(serializeView({ ...v, compare: null })).toBe('ex=healthy.pcap&c=1&t=0.1,0.2');
  });
});

describe('refused compare links say why, in one line', () => {
  it.each([
    ['compare=1', ['#compare=1 was ignored: a compare view names two connection numbers, A,B.']],
    ['compare=1,-2', ['#compare=1,-2 was ignored: a compare view names two connection numbers, A,B.']],
    ['compare=a,b', ['#compare=a,b was ignored: a compare view names two connection numbers, A,B.']],
    ['compare-ex=healthy.pcap', ['#compare-ex=healthy.pcap was ignored: it belongs to a compare view and the link has no #compare=.']],
    ['compare=0,1&compare-url=javascript%3Aalert(1)', ['#compare-url=javascript:alert(1) was ignored: only https: addresses can be opened, not javascript:.']],
    ['compare=0,1&compare-ex=..%2Fx', ['#compare-ex=../x was ignored: an example is named by its file name (letters, digits, . _ -).']],
    ['compare=0,1&compare-snap=%3Cb%3E', ['#compare-snap=<b> was ignored: a snapshot is base64url (letters, digits, - and _).']],
    ['compare=0,1&compare-snap=AAAA&twin-snap=%3Cb%3E', ['#twin-snap=<b> was ignored: a merged view is base64url (letters, digits, - and _).']],
    ['compare=0,1&compare-ex=a.pcap&twin-snap=AAAA', ['#twin-snap=AAAA was ignored: a merged view belongs to a link that holds its two snapshots (#compare-snap=).']],
    ['twin-snap=AAAA', ['#twin-snap=AAAA was ignored: it belongs to a compare view and the link has no #compare=.']],
    ['compare=0,1&compare-t=2,1', ['#compare-t=2,1 was ignored: a time range is two numbers of seconds, start < end, within ±10⁹.']],
    ['compare=0,1&compare-ex=a.pcap&compare-url=https%3A%2F%2Fx.org%2Fb.pcap', ['#compare-ex=a.pcap was ignored: the second capture is already named by #compare-url=.']],
  ])('%s', (fragment, refused) => {
    expect(parseViewWithRefusals(fragment).refused).toEqual(refused);
  });

  it('a refused second capture is not replaced by the first one: no compare view at all', () => {
    expect(parseView('compare=0,1&compare-ex=..%2Fx').compare).toBeNull();
  });

  it('echoes at most 200 characters of a 1 MB #compare-snap=', () => {
    const [message] = parseViewWithRefusals(`compare=0,0&compare-snap=${'<'.repeat(1_000_000)}`).refused;
    expect(message.length).toBeLessThan(400);
  });
});
