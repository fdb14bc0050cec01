// The gzip bomb of e2e/gzip-bomb.spec.ts, the same file scripts/fixtures/gzip-bomb.mjs
// streams (a pcap header and zeros, gzipped: a valid gzip member, RFC 1952) written
// without deflating gigabytes: one MiB of zeros is deflated once and its blocks repeated.
// zlib's level 9 over the 8 GiB stream took ~20 CPU-s on the 2-core machine, the first
// e2e run on each machine (issue 42, item 1); this takes a few ms.
//
// Why repeating is valid (RFC 1951): a raw deflate stream ended with a full flush ends on
// a byte boundary after a non-final block, and its matches reach back only into its own
// output, so the blocks of one such stream, appended to any other at a byte boundary,
// inflate to the same bytes again. A final empty block ends the whole; the trailer's
// CRC-32 of the zeros is worked out by zlib's crc32_combine (x^(8n) mod P), not by
// reading 8 GiB.
import { closeSync, openSync, writeSync } from 'node:fs';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { PCAP_HEADER } from '../scripts/fixtures/gzip-bomb.mjs';

const PIECE = 1 << 20;
const POLY = 0xedb88320;

/** a·b modulo the CRC-32 polynomial (reflected), zlib crc32.c multmodp. */
function multmodp(a: number, b: number): number {
  let m = 0x80000000, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(n·2^k) modulo the polynomial, zlib crc32.c x2nmodp. */
function x2nmodp(n: number, k: number): number {
  const table: number[] = [];
  let q = 1 << 30; // x^1
  for (let i = 0; i < 32; i++) { table.push(q); q = multmodp(q, q); }
  let p = 0x80000000; // x^0
  for (; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multmodp(table[k & 31], p);
  return p;
}

/** The CRC-32 of A then B from crc(A), crc(B) and B's length (zlib crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multmodp(x2nmodp(lengthB, 3), crcA) ^ crcB) >>> 0;
}

/** Writes to `path` the gzip of PCAP_HEADER and zeros, `inflatedBytes` in all. */
export function writeGzipBomb(path: string, inflatedBytes: number) {
  const flush = { level: 9, finishFlush: constants.Z_FULL_FLUSH };
  const first = Buffer.concat([PCAP_HEADER, Buffer.alloc(PIECE - PCAP_HEADER.length)]);
  const zeros = Buffer.alloc(PIECE);
  const whole = Math.floor(inflatedBytes / PIECE);
  const rest = inflatedBytes % PIECE;
  if (whole < 1) throw new Error('a bomb of at least one piece');
  const pieceCrc = crc32(zeros);
  let crc = crc32(first);
  // RFC 1952 member header: ID1 ID2, CM=8 (deflate), no flags, no mtime, XFL 2, OS 3 (Unix).
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]));
    writeSync(fd, deflateRawSync(first, flush));
    const repeated = deflateRawSync(zeros, flush);
    // A few MiB per write: 8 GiB is 8,191 repeats of ~1 KB.
    const batch = Buffer.concat(Array.from({ length: 1024 }, () => repeated));
    let left = whole - 1;
    for (; left >= 1024; left -= 1024) writeSync(fd, batch);
    if (left > 0) writeSync(fd, batch.subarray(0, left * repeated.length));
    crc = crc32Combine(crc, x2nZeros(whole - 1, pieceCrc), (whole - 1) * PIECE);
    if (rest > 0) {
      writeSync(fd, deflateRawSync(zeros.subarray(0, rest), flush));
      crc = crc32Combine(crc, crc32(zeros.subarray(0, rest)), rest);
    }
    writeSync(fd, deflateRawSync(Buffer.alloc(0))); // the final (empty) block
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc, 0);
    trailer.writeUInt32LE(inflatedBytes % 2 ** 32, 4); // ISIZE: the length modulo 2^32
    writeSync(fd, trailer);
  } finally {
    closeSync(fd);
  }
}

/** The CRC-32 of `count` pieces of zeros, from one piece's, by doubling. */
function x2nZeros(count: number, pieceCrc: number): number {
  let crc = 0, length = 0; // the CRC of nothing is 0
  let power = pieceCrc, powerLength = PIECE;
  for (let n = count; n > 0; n = Math.floor(n / 2)) {
    if (n % 2) { crc = crc32Combine(crc, power, powerLength); length += powerLength; }
    power = crc32Combine(power, power, powerLength);
    powerLength *= 2;
  }
  return crc;
}
