// The share link of a compare view. Captures reachable by address (#url=) need only
// the permalink. Otherwise the link carries two snapshots, one per connection, each
// made by its own capture's worker with the existing share code (wasm/src/share, one
// call per side) within half the link budget — `snap=` for A (the page opens it as it
// opens any shared view) and `compare-snap=` for B — so the whole link stays within
// the 8 KB of any share link. When the merged view of two vantage points is shown above
// the charts (issue 44, TwinArea), the link carries it too (`twin-snap=`, made in Rust by
// wasm/src/share/twin.rs within half the link, first: the two snapshots share
// what it leaves).
import type { ConnectionSummary } from '../model/types';
import type { Shared, ShareSpec } from '../worker/protocol';
import { serializeView, type ViewState } from '../state/url';
import { MAX_LINK_BYTES } from '../share/snapshot';
import { shownRange } from '../charts/timeRange';
import { compareFull } from './sides';
import { COMPARE_CHART_IDS } from '../worker/generated/vocabulary';
import type { TwinShared } from './mergeCaptures';

/** The merged view's share of a link (wasm/src/share/twin.rs `MAX_TWIN_CHARS`). */
export const MAX_TWIN_CHARS = Math.floor(MAX_LINK_BYTES / 2);

/** The merged view shown above the compare charts. */
export interface ShareTwin {
  /** Makes the link's part of the pair shown, its series cut to `columns` or fewer. */
  make?: (columns: number, maxChars: number) => Promise<TwinShared>;
  /** The link's own part when the page was opened from one (re-shared as it is). */
  snapshot?: string;
}

export interface ShareSide {
  summary: ConnectionSummary;
  name: string;
  /** Makes a snapshot from the side's capture (its worker). */
  make?: (spec: ShareSpec) => Promise<Shared>;
  /** The side's snapshot when it was itself opened from a link (re-shared as it is). */
  snapshot?: string;
}


export async function compareLink(
  base: string, view: ViewState, sides: [ShareSide, ShareSide], columns: number, binSeconds: number, twin?: ShareTwin,
): Promise<{ link: string; note?: string } | { error: string }> {
  const compare = view.compare;
  if (!compare) return { error: 'Nothing to compare.' };
  const byAddress = view.source?.kind === 'url' && (compare.with.kind === 'same' || compare.with.kind === 'url');
  if (byAddress) return { link: `${base}#${serializeView(view)}` };

  const makeTwin = async (maxChars: number): Promise<{ snapshot: string } | { error: string }> => {
    if (!twin?.make) return twin?.snapshot && twin.snapshot.length <= maxChars ? { snapshot: twin.snapshot } : { error: 'it does not fit' };
    return twin.make(columns, maxChars).catch((error) => ({ error: error instanceof Error ? error.message : String(error) }));
  };
  let twinPart: string | undefined;
  if (twin) {
    const made = twin.make ? await makeTwin(MAX_TWIN_CHARS) : { snapshot: twin.snapshot ?? '' };
    if ('error' in made) return { error: `No link could be made of the merged view: ${made.error}` };
    twinPart = made.snapshot || undefined;
  }
  // The link's view: no capture, no range of the one-connection view; the snapshots store
  // it without the merged view (`stored`), the link holds it.
  const linkView = (with_: NonNullable<ViewState['compare']>['with'], twinOf?: string): ViewState =>
    ({ ...view, source: null, range: null, compare: { ...compare, with: with_, twin: twinOf } });
  const stored = serializeView(linkView({ kind: 'same' }));
  const budget = Math.floor((MAX_LINK_BYTES - `${base}#${stored}&compare-snap=&snap=${twinPart ? `&twin-snap=${twinPart}` : ''}`.length) / 2);
  // The range the compare charts draw (padding included), from each side's first
  // packet: each link's grid is then the columns its side is drawn on, and the
  // receiver, asking for the same view, draws the same picture.
  const [r0, r1] = shownRange(compare.range, compareFull(sides));
  const snapshotOf = async (side: ShareSide): Promise<string> => {
    if (!side.make) {
      if (side.snapshot) return side.snapshot;
      throw new Error(`${side.name} cannot be shared.`);
    }
    const { start } = side.summary;
    const spec: ShareSpec = {
      connection: side.summary.id, charts: [...COMPARE_CHART_IDS], columns, name: side.name, view: stored, binSeconds, maxLinkChars: budget,
      t0: start + r0, t1: start + r1,
    };
    const made = await side.make(spec);
    if ('error' in made) throw new Error(`No link could be made of ${side.name}: ${made.error}`);
    return made.snapshot;
  };
  try {
    const [a, b] = await Promise.all(sides.map(snapshotOf));
    const linkOf = (t?: string) => `${base}#${serializeView(linkView({ kind: 'snapshot', data: b }, t))}&snap=${a}`;
    let link = linkOf(twinPart);
    let note: string | undefined;
    if (link.length > MAX_LINK_BYTES && twinPart) {
      // A snapshot has a floor it cannot go below (its summary; a request/response
      // connection's stalls): the merged view then gets the room the two leave, made
      // again coarser (share/twin.rs), or the link goes without it and says so.
      const room = MAX_LINK_BYTES - linkOf().length - '&twin-snap='.length;
      const again = room > 0 ? await makeTwin(room) : { error: 'no room' };
      if ('snapshot' in again) link = linkOf(again.snapshot);
      else {
        link = linkOf();
        note = `The merged view of the two vantage points did not fit in the link beside the two snapshots (${room > 0 ? room : 0} characters were left); the link opens the compare view without it.`;
      }
    }
    if (link.length > MAX_LINK_BYTES) return { error: `This compare view is too large for a link (${Math.ceil(link.length / 1024)} KB).` };
    return note ? { link, note } : { link };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
