// tcpscope's service worker: the app keeps working offline once it has been loaded
// (issue 8). Plain JS in public/ so that it is served from the site root with a fixed
// name (a service worker's scope is its own directory). Registered by web/sw-register.ts.
//
// The app shell only (issue 18, item 2): the pages, Vite's hashed assets (scripts,
// styles, the decoder worker and its wasm) and the icon. Never a capture: not an
// example, not a file named by #url= (same-origin or not), nothing from another
// origin — a capture someone opened must not stay behind in Cache Storage. Network
// first, so a new deploy is picked up at once; when the network fails, the cached
// copy answers. On the first visit the page was loaded
// before this worker ran, so the page sends the list of what it loaded, and this
// worker caches it plus the assets those scripts name (the decoder worker and its
// wasm are fetched only when the first capture is opened).

// v2: v1 cached every same-origin GET, example captures included; activating v2
// deletes that cache.
const CACHE = 'tcpscope-v2';
/** Vite's hashed asset names, as they appear inside the built scripts. */
const ASSET_NAME = /[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(?:js|css|wasm)/g;

/** Shell paths below the service worker's directory: the directory itself (the app
 *  page), the two pages, the icon and hashed assets. Everything else is passed through. */
const SHELL_PATH = /^(?:|index\.html|embed\.html|favicon\.svg|assets\/[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(?:js|css|wasm|svg|woff2))$/;
const scopePath = new URL('./', self.location.href).pathname;
const isShell = (url) => {
  const parsed = new URL(url, self.location.href);
  return parsed.origin === self.location.origin && parsed.pathname.startsWith(scopePath)
    && SHELL_PATH.test(parsed.pathname.slice(scopePath.length));
};

self.addEventListener('install', (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('tcpscope-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** Cache `urls` and, for scripts, the sibling assets they name (two levels: app → worker → wasm). */
async function cacheAll(urls, depth = 0) {
  const cache = await caches.open(CACHE);
  const named = new Set();
  await Promise.all(urls.filter(isShell).map(async (url) => {
    try {
      const response = await fetch(url, { cache: 'no-cache' });
      if (response.status !== 200) return;
      await cache.put(url, response.clone());
      if (depth < 2 && new URL(url).pathname.endsWith('.js')) {
        for (const name of (await response.text()).match(ASSET_NAME) ?? []) named.add(new URL(name, url).href);
      }
    } catch {
      // offline or gone: nothing to cache
    }
  }));
  const more = [...named].filter((u) => !urls.includes(u));
  if (more.length) await cacheAll(more, depth + 1);
}

self.addEventListener('message', (event) => {
  if (event.data?.type !== 'cache' || !Array.isArray(event.data.urls)) return;
  const urls = event.data.urls.filter((u) => typeof u === 'string');
  event.waitUntil(cacheAll(urls).then(() => event.source?.postMessage({ type: 'cached' })));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !isShell(request.url) || request.headers.has('range')) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.status === 200 && response.type === 'basic') {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((c) => c.put(request, copy)).catch(() => {}));
        }
        return response;
      })
      .catch(async () => {
        const hit = await caches.match(request.url, { ignoreSearch: true, ignoreVary: true });
        if (hit) return hit;
        if (request.mode === 'navigate') {
          const page = await caches.match(new URL('./', self.location.href).href, { ignoreVary: true });
          if (page) return page;
        }
        return Response.error();
      }),
  );
});
