// Decoding the PNGs Playwright's screenshots are (PNG spec, ISO/IEC 15948: 8-bit RGB or
// RGBA, not interlaced), so that e2e tests compare pixels in Node: one screenshot of a
// region, cut into the charts it holds, instead of a screenshot and a decoding page per chart.
import { inflateSync } from 'node:zlib';

export interface Pixels { width: number; height: number; rgba: Uint8Array }

/** The RGBA pixels of `png` (8-bit truecolour, with or without alpha; §11.2.2 colour types 2 and 6). */
export function decodePng(png: Buffer): Pixels {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8, width = 0, height = 0, channels = 0;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`PNG: depth ${depth}, colour type ${colour}, interlace ${interlace} not handled`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  // Unfilter (§9.2): each row starts with its filter type; a is the byte to the left,
  // b the one above, c above-left.
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const up = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? rows[row + x - channels] : 0;
      const b = y > 0 ? rows[up + x] : 0;
      const c = x >= channels && y > 0 ? rows[up + x - channels] : 0;
      let v = raw[src + x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`PNG: filter type ${filter}`);
      rows[row + x] = v & 0xff;
    }
  }
  if (channels === 4) return { width, height, rgba: rows };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < rows.length; i += 3, j += 4) {
    rgba[j] = rows[i]; rgba[j + 1] = rows[i + 1]; rgba[j + 2] = rows[i + 2]; rgba[j + 3] = 255;
  }
  return { width, height, rgba };
}

/** The `width` × `height` pixels of `image` from (x, y), whole pixels (the box rounded). */
export function crop(image: Pixels, box: { x: number; y: number; width: number; height: number }): Pixels {
  const x0 = Math.max(0, Math.round(box.x)), y0 = Math.max(0, Math.round(box.y));
  const width = Math.min(image.width - x0, Math.round(box.width)), height = Math.min(image.height - y0, Math.round(box.height));
  const rgba = new Uint8Array(Math.max(0, width) * Math.max(0, height) * 4);
  for (let y = 0; y < height; y++) {
    rgba.set(image.rgba.subarray(((y0 + y) * image.width + x0) * 4, ((y0 + y) * image.width + x0 + width) * 4), y * width * 4);
  }
  return { width: Math.max(0, width), height: Math.max(0, height), rgba };
}

/** Share of pixels (0..1) that differ between two images (any channel by more than 48 of 255); 1 when their sizes differ. */
export function pixelDiff(a: Pixels, b: Pixels): number {
  if (a.width !== b.width || a.height !== b.height || a.width * a.height === 0) return 1;
  let differ = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    const d = Math.max(Math.abs(a.rgba[i] - b.rgba[i]), Math.abs(a.rgba[i + 1] - b.rgba[i + 1]), Math.abs(a.rgba[i + 2] - b.rgba[i + 2]));
    if (d > 48) differ++;
  }
  return differ / (a.width * a.height);
}
