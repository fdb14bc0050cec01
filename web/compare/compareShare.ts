// The share link of a compare view. Captures reachable by address (#url=) need only
// the permalink. Otherwise the link carries two snapshots, one per connection, each
// made by its own capture's worker with the existing share code (wasm/src/share, one
// call per side) within half the link budget — `snap=` for A (the page opens it as it
// opens any shared view) and `compare-snap=` for B — so the whole link stays within
// the 8 KB of any share link.
import type { ConnectionSummary } from '../model/types';
import type { Shared, ShareSpec } from '../worker/protocol';
import { serializeView, type ViewState } from '../state/url';
import { MAX_LINK_BYTES } from '../share/snapshot';
import { shownRange } from '../charts/timeRange';
import { compareFull } from './sides';
import { COMPARE_CHART_IDS } from '../worker/generated/vocabulary';

export interface ShareSide {
  summary: ConnectionSummary;
  name: string;
  /** Makes a snapshot from the side's capture (its worker). */
  make?: (spec: ShareSpec) => Promise<Shared>;
  /** The side's snapshot when it was itself opened from a link (re-shared as it is). */
  snapshot?: string;
}


export async function compareLink(
  base: string, view: ViewState, sides: [ShareSide, ShareSide], columns: number, binSeconds: number,
): Promise<{ link: string } | { error: string }> {
  const compare = view.compare;
  if (!compare) return { error: 'Nothing to compare.' };
  const byAddress = view.source?.kind === 'url' && (compare.with.kind === 'same' || compare.with.kind === 'url');
  if (byAddress) return { link: `${base}#${serializeView(view)}` };

  // The link's view: no capture, no range of the one-connection view.
  const linkView = (with_: NonNullable<ViewState['compare']>['with']): ViewState =>
    ({ ...view, source: null, range: null, compare: { ...compare, with: with_ } });
  const stored = serializeView(linkView({ kind: 'same' }));
  const budget = Math.floor((MAX_LINK_BYTES - `${base}#${stored}&compare-snap=&snap=`.length) / 2);
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
    const link = `${base}#${serializeView(linkView({ kind: 'snapshot', data: b }))}&snap=${a}`;
    if (link.length > MAX_LINK_BYTES) return { error: `This compare view is too large for a link (${Math.ceil(link.length / 1024)} KB).` };
    return { link };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
