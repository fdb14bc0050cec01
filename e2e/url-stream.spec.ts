// #url= streamed into the decoder as it arrives (issue 45, item 6), tested as an attacker
// serves it: an endless fast stream (the cap must end it, with the page's memory bounded
// and the packets before it drawn), an endless slow one (decoded while it arrives; Cancel
// must end the download), and a connection that drops midway (what arrived is kept, the
// message says where it stopped). Each failed on main (ee79b26), which buffered the whole
// body before decoding: "0 packets" while arriving, then no chart, only an error.
//
// The server is a real HTTP server (page.route fulfils whole bodies only): the page asks
// its own origin (#url= takes http: from there only, fetchCapture.ts refusalOf) and
// page.route passes the request on to this server, unseen by the page; the body streams.
import { expect, test, type Page } from '@playwright/test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { treePss } from '../bench/pss.mjs';
import { PCAP_HEADER } from '../scripts/fixtures/gzip-bomb.mjs';
import { expectState } from './state';

// The service worker would answer the page's fetches itself, out of page.route's sight.
test.use({ serviceWorkers: 'block' });

/** One pcap record: Ethernet + IPv4 + TCP, `payload` zero bytes (their checksum sum is 0),
 * from the server 10.0.0.2:80 to the client 10.0.0.1:40000 (or back, for ACKs); valid
 * IPv4 and TCP checksums, so the decoder takes it as a well-formed frame. */
function record(toClient: boolean, seq: number, ack: number, flags: number, payload: number, timeUs: number): Buffer {
  const frame = Buffer.alloc(14 + 20 + 20 + payload);
  frame.writeUInt16BE(0x0800, 12);
  const ip = 14;
  frame[ip] = 0x45;
  frame.writeUInt16BE(20 + 20 + payload, ip + 2);
  frame[ip + 8] = 64;
  frame[ip + 9] = 6;
  const [src, dst] = toClient ? [[10, 0, 0, 2], [10, 0, 0, 1]] : [[10, 0, 0, 1], [10, 0, 0, 2]];
  frame.set(src, ip + 12);
  frame.set(dst, ip + 16);
  frame.writeUInt16BE(onesComplement(sum16(frame.subarray(ip, ip + 20))), ip + 10);
  const tcp = ip + 20;
  frame.writeUInt16BE(toClient ? 80 : 40000, tcp);
  frame.writeUInt16BE(toClient ? 40000 : 80, tcp + 2);
  frame.writeUInt32BE(seq >>> 0, tcp + 4);
  frame.writeUInt32BE(ack >>> 0, tcp + 8);
  frame[tcp + 12] = 5 << 4;
  frame[tcp + 13] = flags;
  frame.writeUInt16BE(65535, tcp + 14);
  // Pseudo-header (RFC 9293 §3.1) + header; the zero payload adds nothing.
  const pseudo = Buffer.alloc(12);
  pseudo.set(src, 0);
  pseudo.set(dst, 4);
  pseudo[9] = 6;
  pseudo.writeUInt16BE(20 + payload, 10);
  frame.writeUInt16BE(onesComplement(sum16(pseudo) + sum16(frame.subarray(tcp, tcp + 20))), tcp + 16);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(Math.floor(timeUs / 1e6), 0);
  header.writeUInt32LE(timeUs % 1e6, 4);
  header.writeUInt32LE(frame.length, 8);
  header.writeUInt32LE(frame.length, 12);
  return Buffer.concat([header, frame]);
}
const sum16 = (b: Buffer) => { let s = 0; for (let i = 0; i < b.length; i += 2) s += (b[i] << 8) | (b[i + 1] ?? 0); return s; };
const onesComplement = (s: number) => { while (s > 0xffff) s = (s & 0xffff) + (s >>> 16); return ~s & 0xffff; };

const SYN = 0x02, ACK = 0x10, PSH = 0x08;
const CLIENT_ISN = 1000, SERVER_ISN = 5000;

/** A download that never ends: header, handshake, then `segment`-byte data segments from
 * the server, each acknowledged by the client, `gapUs` apart (capture time). */
function* endlessCapture(segment: number, gapUs: number): Generator<Buffer> {
  yield PCAP_HEADER;
  let t = 1_000_000;
  yield record(false, CLIENT_ISN, 0, SYN, 0, t);
  yield record(true, SERVER_ISN, CLIENT_ISN + 1, SYN | ACK, 0, (t += 10_000));
  yield record(false, CLIENT_ISN + 1, SERVER_ISN + 1, ACK, 0, (t += 10_000));
  for (let seq = SERVER_ISN + 1; ; seq += segment) {
    yield record(true, seq, CLIENT_ISN + 1, ACK | PSH, segment, (t += gapUs));
    yield record(false, CLIENT_ISN + 1, seq + segment, ACK, 0, (t += gapUs));
  }
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;
/** Serves `route` on a port of its own; the page reaches it as <its origin>/streams/<name>. */
async function streamServer(page: Page, route: Route): Promise<{ close: () => void }> {
  const server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await page.route('**/streams/**', (r) => r.continue({ url: `http://127.0.0.1:${port}${new URL(r.request().url()).pathname}` }));
  return { close: () => { server.closeAllConnections(); server.close(); } };
}

/** Writes `chunks` as fast as the client reads (or every `everyMs`), until it hangs up;
 * `state.sent` counts the bytes written, `state.closed` says the client hung up. */
function pour(req: IncomingMessage, res: ServerResponse, chunks: Iterator<Buffer>, state: { sent: number; closed: boolean }, everyMs = 0) {
  req.on('close', () => { state.closed = true; });
  const next = () => {
    while (!state.closed) {
      // Batches of ~1 MiB: one write per 16 KiB segment would be the test's own bottleneck.
      const batch: Buffer[] = [];
      let size = 0;
      while (size < (everyMs ? 1 : 1 << 20)) {
        const chunk = chunks.next().value as Buffer;
        batch.push(chunk);
        size += chunk.length;
      }
      state.sent += size;
      const more = res.write(Buffer.concat(batch));
      if (everyMs) return void setTimeout(next, everyMs);
      if (!more) return void res.once('drain', next);
    }
  };
  next();
}

test('an endless fast stream stops at the cap with one message, the packets before it drawn, memory bounded', async ({ page, baseURL }, testInfo) => {
  test.setTimeout(240_000); // 2 GiB through the decoder
  const state = { sent: 0, closed: false };
  const server = await streamServer(page, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.tcpdump.pcap' }); // chunked: no Content-Length
    pour(req, res, endlessCapture(16_384, 100), state);
  });
  try {
    await page.goto('/');
    await expectState(page, 'idle');
    const pss = () => treePss(process.pid, { includeRoot: false });
    const before = pss();
    let peak = before ?? 0;
    const sampler = setInterval(() => { peak = Math.max(peak, pss() ?? 0); }, 50);
    const started = Date.now();
    try {
      await page.goto(`${baseURL}/#url=${encodeURIComponent(`${baseURL}/streams/endless.pcap`)}`);
      await expect(page.locator('.app')).toHaveAttribute('data-state', /ready|error/, { timeout: 200_000 });
    } finally {
      clearInterval(sampler);
    }
    await expectState(page, 'ready');
    const stopped = page.getByTestId('download-stopped');
    await expect(stopped).toHaveText(
      `${baseURL}/streams/endless.pcap was stopped after 2 GiB: a capture fetched by address may be at most 2 GiB, and it sent more. Everything that arrived before is analysed and drawn.`);
    expect((await stopped.innerText()).split('\n').filter(Boolean)).toHaveLength(1);
    // What arrived is analysed and charted: the one connection, not "damaged".
    await expect(page.getByTestId('capture')).toContainText(/\d{2,3},\d{3} packets/);
    await expect(page.getByTestId('damaged-banner')).toHaveCount(0);
    expect(await page.locator('svg[data-chart]').count()).toBeGreaterThan(0);
    // The download ended: the server saw the page hang up, not a browser still reading.
    await expect.poll(() => state.closed).toBe(true);
    const seconds = (Date.now() - started) / 1000;
    const mib = (n: number) => Math.round(n / 2 ** 20);
    testInfo.annotations.push({ type: 'memory', description: `PSS before ${mib(before ?? 0)} MiB, peak ${mib(peak)} MiB; ${mib(state.sent)} MiB sent; cap in ${seconds.toFixed(1)} s` });
    console.log(`endless fast stream: PSS before ${mib(before ?? 0)} MiB, peak ${mib(peak)} MiB, ${mib(state.sent)} MiB sent, ${seconds.toFixed(1)} s`);
    // main buffered the body: +1.45 GB in 5 s, then 2 GiB held before a byte was decoded.
    if (before != null) expect(peak - before).toBeLessThan(500 * 2 ** 20);
    // The page stays usable: another capture opens.
    await page.evaluate(() => { location.hash = '#ex=stalls.pcap'; });
    await expectState(page, 'ready');
    await expect(page.getByTestId('download-stopped')).toHaveCount(0);
  } finally {
    server.close();
  }
});

test('an endless slow stream is decoded as it arrives, with its size as announced; Cancel ends the download', async ({ page, baseURL }) => {
  const state = { sent: 0, closed: false };
  const server = await streamServer(page, (req, res) => {
    // It announces 50 MB and sends one segment (16 KiB + its ACK) every 20 ms, for ever.
    res.writeHead(200, { 'content-type': 'application/vnd.tcpdump.pcap', 'content-length': '50000000' });
    pour(req, res, endlessCapture(16_384, 20_000), state, 20);
  });
  try {
    await page.goto(`${baseURL}/#url=${encodeURIComponent(`${baseURL}/streams/slow.pcap`)}`);
    const progress = page.getByTestId('progress');
    // Packets counted while the body still arrives (main said "0 packets" until the end).
    await expect(progress).toContainText(/Decoding slow\.pcap: [\d.]+ [kM]B of 50 MB \(\d+ %\).* · [1-9][\d,]* packets/, { timeout: 20_000 });
    await page.getByTestId('cancel').click();
    await expectState(page, 'idle');
    // The request is aborted: the server sees the page hang up, and sends nothing more.
    await expect.poll(() => state.closed, { timeout: 5_000 }).toBe(true);
    const sentAtClose = state.sent;
    await page.waitForTimeout(300); // the server's next writes would come every 20 ms
    expect(state.sent).toBe(sentAtClose);
    // The page stays usable.
    await page.evaluate(() => { location.hash = '#ex=stalls.pcap'; });
    await expectState(page, 'ready');
  } finally {
    server.close();
  }
});

/** 400 segments and their ACKs (~445 KiB), the last one cut, then the connection drops
 * without ending the chunked body (RFC 9112 §7.1: an incomplete message). */
const cutRoute: Route = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/vnd.tcpdump.pcap' });
  const capture = endlessCapture(1_000, 1_000);
  const bytes = Buffer.concat(Array.from({ length: 4 + 800 }, () => capture.next().value as Buffer));
  res.write(bytes.subarray(0, bytes.length - 500));
  setTimeout(() => res.socket?.destroy(), 200);
};
const cutMessage = (baseURL: string, tail: string) =>
  new RegExp(`^Could not fetch ${baseURL.replace(/[.]/g, '\\.')}/streams/cut\\.pcap: the network failed after 4\\d\\d\\.\\d KiB had arrived\\. ${tail}$`);

test('a stream that fails midway: what arrived is analysed and drawn, one line says where it stopped', async ({ page, baseURL }) => {
  const server = await streamServer(page, cutRoute);
  try {
    await page.goto(`${baseURL}/#url=${encodeURIComponent(`${baseURL}/streams/cut.pcap`)}`);
    await expectState(page, 'ready');
    await expect(page.getByTestId('download-stopped')).toHaveText(cutMessage(baseURL!, 'Everything that arrived before is analysed and drawn\\.'));
    // Every whole packet before the cut (3 + 2 × 400 records, the last two cut off), the cut one not "damage".
    await expect(page.getByTestId('capture')).toContainText('801 packets');
    await expect(page.getByTestId('damaged-banner')).toHaveCount(0);
    await expect(page.getByTestId('error')).toHaveCount(0);
    expect(await page.locator('svg[data-chart]').count()).toBeGreaterThan(0);
  } finally {
    server.close();
  }
});

test('the embed too: a stream that fails midway is drawn as far as it came, with the line', async ({ page, baseURL }) => {
  const server = await streamServer(page, cutRoute);
  try {
    await page.goto(`${baseURL}/embed.html#url=${encodeURIComponent(`${baseURL}/streams/cut.pcap`)}`);
    await expectState(page, 'ready', { root: '.embed' });
    await expect(page.getByTestId('download-stopped')).toHaveText(cutMessage(baseURL!, 'What arrived before it is drawn\\.'));
    expect(await page.locator('svg[data-chart]').count()).toBeGreaterThan(0);
  } finally {
    server.close();
  }
});

test('a gzip capture by address is inflated as it arrives, the same capture as its plain copy', async ({ page, baseURL }) => {
  const plain = readFileSync(fileURLToPath(new URL('../public/examples/stalls.pcap', import.meta.url)));
  await page.route('**/streams/stalls.pcap.gz', (r) => r.fulfill({ status: 200, contentType: 'application/gzip', body: gzipSync(plain) }));
  await page.goto(`${baseURL}/#ex=stalls.pcap`);
  await expectState(page, 'ready');
  const summary = (await page.getByTestId('capture').innerText()).replace(/^\S+/, '');
  await page.goto(`${baseURL}/#url=${encodeURIComponent(`${baseURL}/streams/stalls.pcap.gz`)}`);
  await expectState(page, 'ready');
  expect((await page.getByTestId('capture').innerText()).replace(/^\S+/, '')).toBe(summary);
});

test('an endless stream that is no capture: refused by its first bytes, and the download ends there', async ({ page, baseURL }) => {
  const state = { sent: 0, closed: false };
  const html = Buffer.from('<!doctype html><p>not a capture</p>\n'.repeat(30_000));
  const server = await streamServer(page, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    pour(req, res, (function* () { for (;;) yield html; })(), state);
  });
  try {
    await page.goto(`${baseURL}/#url=${encodeURIComponent(`${baseURL}/streams/page.pcap`)}`);
    await expectState(page, 'error');
    await expect(page.getByTestId('error')).toContainText("Not a capture file: it starts with 3c 21 64 6f (this looks like a text file, e.g. HTML or a text export)");
    await expect.poll(() => state.closed).toBe(true);
    // Hung up long before the cap (main read on to 2 GiB before looking at a byte).
    expect(state.sent).toBeLessThan(256 * 2 ** 20);
  } finally {
    server.close();
  }
});
