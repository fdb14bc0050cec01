// The benchmarks' page server (bench/browser.mjs, bench/progressive.mjs): dist/ served
// as files, so no dev-server start-up is in the numbers and wasm gets its MIME type,
// plus the read baseline's worker script. One copy for both benchmarks.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const dist = fileURLToPath(new URL('../dist/', import.meta.url));

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };

/**
 * The read baseline: the file's bytes in 16 MiB slices, as the decoder's worker reads
 * them, each touched; ms. Runs in its own worker (READER_PATH, a same-origin script, as
 * the app's CSP allows: worker-src 'self', a blob: worker is refused) or in the page.
 */
export async function readAllMs(f) {
  const t0 = performance.now();
  let sum = 0;
  for (let at = 0; at < f.size; at += 16 << 20) sum += new Uint8Array(await f.slice(at, at + (16 << 20)).arrayBuffer())[0] ?? 0;
  return performance.now() - t0 + sum * 0;
}
export const READER_PATH = '/__bench-read-worker.js';
const READER_SOURCE = `const readAllMs = ${readAllMs};\nonmessage = async (e) => postMessage(await readAllMs(e.data));`;

/** Exits with a clear message when dist/ is not built; `who` names the benchmark. */
export function requireDist(who) {
  if (!existsSync(join(dist, 'index.html'))) {
    console.error(`${who}: dist/ is not built (bash scripts/build-wasm.sh && npx vite build)`);
    process.exit(2);
  }
}

/** Serves dist/ (or another build, `root`) on 127.0.0.1:`port` (unknown paths get
 *  index.html); resolves to the server. */
export async function serveDist(port, root = dist) {
  // Absolute, so that the containment test below compares like with like: a relative
  // `--dist-b` once sent index.html for every path and hung the bench (session 38).
  root = resolve(root);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === READER_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      return res.end(READER_SOURCE);
    }
    let target = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!target.startsWith(root) || !existsSync(target) || statSync(target).isDirectory()) target = join(root, 'index.html');
    res.writeHead(200, { 'content-type': types[extname(target)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    createReadStream(target).pipe(res);
  });
  await new Promise((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
  return server;
}
