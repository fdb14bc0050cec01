// Which pair of a merge the compare view shows (twinPair.ts): each pair names its
// connection in input 0 (side A) and input 1 (side B) by role, so the sender's side may
// be either input.
import { describe, expect, it } from 'vitest';
import type { TwinPair } from '../worker/generated/view';
import { firstPair, pairConnections, pairOf } from './twinPair';

const side = (input: number, connection: number) => ({ input, connection, endpoints: ['a:1', 'b:2'] as [string, string] });
const pair = (sender: [number, number], receiver: [number, number]) => ({ senderSide: side(...sender), receiverSide: side(...receiver) }) as unknown as TwinPair;

// Pair 0: A's #3 with B's #7 (B near the data sender); pair 1: A's #5 with B's #5; pair 2: A's #9 with B's #1.
const pairs = [pair([1, 7], [0, 3]), pair([0, 5], [1, 5]), pair([1, 1], [0, 9])];

describe('twin pairs as the compare view\'s two connections', () => {
  it('reads each pair\'s connections by input, whichever side sent the data', () => {
    expect(pairs.map(pairConnections)).toEqual([[3, 7], [5, 5], [9, 1]]);
  });
  it('finds the pair of two connections', () => {
    expect(pairOf(pairs, [9, 1])).toBe(2);
    expect(pairOf(pairs, [9, 7])).toBe(-1);
  });
  it('shows first the exact pair, else the one holding A\'s connection, else the first', () => {
    expect(firstPair(pairs, [5, 5])).toEqual({ index: 1, held: true });
    expect(firstPair(pairs, [9, 4])).toEqual({ index: 2, held: true });
    expect(firstPair(pairs, [8, 7])).toEqual({ index: 0, held: false });
  });
});
