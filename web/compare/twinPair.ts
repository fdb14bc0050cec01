// Which twin pair the compare view shows (issue 44 item 1): the merged view (TwinArea)
// and the compare charts below it show the same connection seen at both ends. A pair
// names its two connections by role (TwinPair.senderSide / receiverSide, each with the
// `input` it came from: 0 is the compare view's side A, the app's capture; 1 is side B).
import type { TwinPair } from '../worker/generated/view';

/** The pair's connection ids as the compare view's sides: [A's, B's]. */
export function pairConnections(p: TwinPair): [number, number] {
  const inInput = (input: number) => (p.senderSide.input === input ? p.senderSide : p.receiverSide).connection;
  return [inInput(0), inInput(1)];
}

/** The pair whose two connections are `conns` ([A, B]), or -1. */
export function pairOf(pairs: readonly TwinPair[], conns: readonly [number, number]): number {
  return pairs.findIndex((p) => { const [a, b] = pairConnections(p); return a === conns[0] && b === conns[1]; });
}

/** The pair to show when the merge arrives: the one of exactly these two connections (a
 *  link's), else the one holding A's (the connection the person had open, "+ other
 *  end"), else the first; `held` tells whether A's connection is in it. */
export function firstPair(pairs: readonly TwinPair[], conns: readonly [number, number]): { index: number; held: boolean } {
  const exact = pairOf(pairs, conns);
  if (exact >= 0) return { index: exact, held: true };
  const holding = pairs.findIndex((p) => pairConnections(p)[0] === conns[0]);
  return holding >= 0 ? { index: holding, held: true } : { index: 0, held: false };
}
