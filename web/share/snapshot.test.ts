import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW } from '../state/url';
import {
  MAX_LINK_BYTES, SnapshotError, fragmentToSnapshot, isSnapshotFileName, readSnapshotFile, snapshotFileText, snapshotLink,
} from './snapshot';

// The snapshot bytes themselves are made and parsed in Rust (wasm/tests/share_*.rs);
// these are the wrappers they travel in.
describe('share links and snapshot files', () => {
  it('puts the view first and the snapshot last in the fragment', () => {
    const link = snapshotLink('https://x.example/tcpscope/', { ...DEFAULT_VIEW, conn: 1, range: [0.5, 2] }, 'VENQUw');
    expect(link).toBe('https://x.example/tcpscope/#c=1&t=0.5,2&snap=VENQUw');
    expect(Array.from(fragmentToSnapshot(link.slice(link.indexOf('#')))!)).toEqual([0x54, 0x43, 0x50, 0x53]);
    expect(MAX_LINK_BYTES).toBe(8192);
  });

  it('says what is wrong with a mangled link, and null when there is none', () => {
    expect(fragmentToSnapshot('#c=1')).toBeNull();
    expect(() => fragmentToSnapshot('#snap=ab+c')).toThrow(SnapshotError);
    expect(() => fragmentToSnapshot('#snap=ab+c')).toThrow(/do not belong to a snapshot/);
  });

  it('reads the bytes back from a .tcpscope.json file and refuses other files', async () => {
    expect(isSnapshotFileName('a.TCPSCOPE.json')).toBe(true);
    const bytes = await readSnapshotFile(new Blob([snapshotFileText('VENQUw')]));
    expect(Array.from(bytes)).toEqual([0x54, 0x43, 0x50, 0x53]);
    // The wrapper names the bytes' own format (header byte 4: "TCPS", 3).
    expect(JSON.parse(snapshotFileText('VENQUwM'))).toMatchObject({ tcpscope: 'snapshot', version: 3 });
    await expect(readSnapshotFile(new Blob(['{"tcpscope":"other"}']))).rejects.toThrow(/not a tcpscope snapshot/);
    await expect(readSnapshotFile(new Blob(['nope']))).rejects.toThrow(/not JSON/);
    await expect(readSnapshotFile(new Blob(['{"tcpscope":"snapshot","data":"a+b"}']))).rejects.toThrow(/not base64url/);
  });
});

describe('a fragment naming two snapshots (issue 45, item 13)', () => {
  it('is refused, as the CLI refuses it, whichever way the key is spelled', () => {
    expect(() => fragmentToSnapshot('#sn%61p=VENQUw&snap=QUFB')).toThrow(SnapshotError);
    expect(() => fragmentToSnapshot('#sn%61p=VENQUw&snap=QUFB')).toThrow(/names two snapshots/);
    expect(fragmentToSnapshot('#c=1&sn%61p=VENQUw')).toEqual(new Uint8Array([0x54, 0x43, 0x50, 0x53]));
  });
});
