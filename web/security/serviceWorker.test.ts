// public/sw.js under an interrupted upgrade (issue 45, item 7), as the network does it:
// version 1 of the site is loaded and cached; version 2 is deployed; its index.html
// arrives, then the connection drops before its script does; then the reader is offline.
// The page must still be version 1, whole (on main, v2's index.html was served without its
// script: a blank page); once v2 arrives whole it replaces v1, and v1's assets are purged.
// The worker runs in a node:vm context with Cache Storage and fetch faked in memory.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

const SOURCE = readFileSync(fileURLToPath(new URL('../../public/sw.js', import.meta.url)), 'utf8');
const ORIGIN = 'https://tcpscope.example';

class FakeCache {
  entries = new Map<string, { body: ArrayBuffer; headers: [string, string][]; status: number }>();
  async put(request: string | Request, response: Response) {
    const url = typeof request === 'string' ? request : request.url;
    this.entries.set(url.split('?')[0], { body: await response.arrayBuffer(), headers: [...response.headers], status: response.status });
  }
  async match(request: string | Request) {
    const url = (typeof request === 'string' ? request : request.url).split('?')[0];
    const e = this.entries.get(url);
    return e ? new Response(e.body.slice(0), { status: e.status, headers: e.headers }) : undefined;
  }
}

class FakeCaches {
  stores = new Map<string, FakeCache>();
  async open(name: string) {
    if (!this.stores.has(name)) this.stores.set(name, new FakeCache());
    return this.stores.get(name)!;
  }
  async keys() {
    return [...this.stores.keys()];
  }
  async delete(name: string) {
    return this.stores.delete(name);
  }
  async match(request: string) {
    for (const c of this.stores.values()) {
      const hit = await c.match(request);
      if (hit) return hit;
    }
    return undefined;
  }
}

/** A site: path → body; `offline` makes every fetch fail; `drop` fails those paths only. */
function makeWorld() {
  const site = new Map<string, string>();
  const world = { site, offline: false, drop: new Set<string>() };
  const fetch = async (input: string | Request) => {
    const url = new URL(typeof input === 'string' ? input : input.url, ORIGIN);
    if (world.offline || world.drop.has(url.pathname)) throw new TypeError('Failed to fetch');
    const body = site.get(url.pathname);
    const response = new Response(body ?? 'not found', { status: body === undefined ? 404 : 200 });
    // A same-origin answer, as a browser types it.
    return Object.defineProperty(response, 'type', { value: 'basic' });
  };
  return { world, fetch };
}

function startWorker() {
  const { world, fetch } = makeWorld();
  const caches = new FakeCaches();
  const listeners = new Map<string, (event: unknown) => void>();
  const self = {
    location: { href: `${ORIGIN}/sw.js`, origin: ORIGIN },
    addEventListener: (type: string, fn: (event: unknown) => void) => listeners.set(type, fn),
    skipWaiting: async () => {},
    clients: { claim: async () => {} },
  };
  vm.runInNewContext(SOURCE, { self, caches, fetch, Response, URL, TextDecoder, Promise, Map, Set, Math, String, Date, Error });
  /** Dispatches a fetch event; resolves with the response and after every waitUntil. */
  const request = async (path: string, navigate = false) => {
    const waits: Promise<unknown>[] = [];
    let answer: Promise<Response> | null = null;
    listeners.get('fetch')!({
      request: { url: `${ORIGIN}${path}`, method: 'GET', mode: navigate ? 'navigate' : 'no-cors', headers: new Headers() },
      respondWith: (p: Promise<Response>) => (answer = p),
      waitUntil: (p: Promise<unknown>) => waits.push(p),
    });
    const response = await answer!;
    await Promise.allSettled(waits);
    await Promise.allSettled(waits); // a wait may start another
    return response;
  };
  return { world, caches, request };
}

const page = (script: string) => `<!doctype html><script type="module" src="/assets/${script}"></script>`;

describe('service worker upgrades are atomic (issue 45, item 7)', () => {
  it('an upgrade interrupted between index.html and its script leaves v1 working offline; v2 whole replaces v1', async () => {
    const { world, caches, request } = startWorker();
    // Version 1: the page, its script, the worker script it names and that worker's wasm.
    world.site.set('/', page('index-AAAAAAAA.js'));
    world.site.set('/assets/index-AAAAAAAA.js', 'new Worker("/assets/decoder.worker-WWWWWWW1.js")');
    world.site.set('/assets/decoder.worker-WWWWWWW1.js', 'fetch("tcpscope_core_bg-CCCCCCC1.wasm")');
    world.site.set('/assets/tcpscope_core_bg-CCCCCCC1.wasm', 'wasm v1');
    expect(await (await request('/', true)).text()).toBe(page('index-AAAAAAAA.js'));

    // Version 2 is deployed; index.html arrives, the connection drops before its script.
    world.site.set('/', page('index-BBBBBBBB.js'));
    world.site.set('/assets/index-BBBBBBBB.js', 'v2 script');
    world.drop.add('/assets/index-BBBBBBBB.js');
    expect(await (await request('/', true)).text()).toBe(page('index-BBBBBBBB.js'));

    // Offline: the page is v1, whose script, worker and wasm are all there.
    world.offline = true;
    expect(await (await request('/', true)).text()).toBe(page('index-AAAAAAAA.js'));
    expect(await (await request('/assets/index-AAAAAAAA.js')).text()).toContain('decoder.worker-WWWWWWW1.js');
    expect(await (await request('/assets/decoder.worker-WWWWWWW1.js')).text()).toContain('CCCCCCC1');
    expect(await (await request('/assets/tcpscope_core_bg-CCCCCCC1.wasm')).text()).toBe('wasm v1');
    expect((await request('/assets/index-BBBBBBBB.js')).type).toBe('error');

    // Back online, v2 arrives whole: it is used, and v1's version (its assets) is purged.
    world.offline = false;
    world.drop.clear();
    await request('/', true);
    world.offline = true;
    expect(await (await request('/', true)).text()).toBe(page('index-BBBBBBBB.js'));
    expect(await (await request('/assets/index-BBBBBBBB.js')).text()).toBe('v2 script');
    expect((await request('/assets/index-AAAAAAAA.js')).type).toBe('error');
    const versions = (await caches.keys()).filter((k) => k.startsWith('tcpscope-v3:index.html:'));
    expect(versions).toHaveLength(1);
  });

  it('a capture is never cached', async () => {
    const { world, caches, request } = startWorker();
    world.site.set('/examples/a.pcap', 'capture bytes');
    await request('/examples/a.pcap').catch(() => null);
    for (const c of caches.stores.values()) expect([...c.entries.keys()].some((k) => k.includes('a.pcap'))).toBe(false);
  });
});
