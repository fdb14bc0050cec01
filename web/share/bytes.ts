// Growable byte writer and bounds-checked reader for the snapshot payload: unsigned
// and zigzag varints (LEB128) on plain JS numbers, so values up to 2^53 survive (the
// 32-bit bitwise operators would truncate relative sequence numbers past 4 GiB).

/** Thrown for any malformed payload; snapshot.ts turns it into the user-facing message. */
export class SnapshotFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotFormatError';
  }
}

const MAX_VARINT = Number.MAX_SAFE_INTEGER;

export class ByteWriter {
  private buf = new Uint8Array(4096);
  private pos = 0;

  private reserve(n: number) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(b: number) {
    this.reserve(1);
    this.buf[this.pos++] = b & 0xff;
  }

  bytes(b: Uint8Array) {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Unsigned LEB128 of a non-negative safe integer. */
  uvarint(value: number) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`uvarint out of range: ${value}`);
    this.reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** Zigzag (0, -1, 1, -2, … → 0, 1, 2, 3, …) then LEB128; |value| must be < 2^52. */
  svarint(value: number) {
    this.uvarint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  float64(value: number) {
    this.reserve(8);
    new DataView(this.buf.buffer, this.pos, 8).setFloat64(0, value, true);
    this.pos += 8;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

export class ByteReader {
  private pos = 0;
  private view: DataView;

  constructor(private buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number, what: string) {
    if (this.pos + n > this.buf.length) throw new SnapshotFormatError(`the data ends in the middle of ${what}`);
  }

  byte(what = 'a byte'): number {
    this.need(1, what);
    return this.buf[this.pos++];
  }

  bytes(n: number, what: string): Uint8Array {
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  uvarint(what = 'a number'): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte(what);
      value += (b & 0x7f) * scale;
      if (value > MAX_VARINT) throw new SnapshotFormatError(`${what} is too large`);
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  }

  svarint(what = 'a number'): number {
    const z = this.uvarint(what);
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  float64(what = 'a number'): number {
    this.need(8, what);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
}
