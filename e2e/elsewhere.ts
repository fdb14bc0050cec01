// A page served from another origin (another port of 127.0.0.1), the way a blog on a
// static host (Hugo, Jekyll, WordPress) embeds tcpscope. about:blank pages from
// page.setContent() have an opaque origin, which `frame-ancestors *` does not match
// (CSP3 §6.7.2.8), so embed tests need a real http origin.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

let server: Server | null = null;
const pages = new Map<string, string>();

/** Serve `html` from another origin; resolves with its address. */
export async function servedElsewhere(html: string): Promise<string> {
  if (!server) {
    const s = createServer((req, res) => {
      const page = pages.get(req.url ?? '');
      res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    s.unref(); // never keeps the test runner alive
    server = s;
  }
  const path = `/page-${pages.size + 1}.html`;
  pages.set(path, html);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
}
