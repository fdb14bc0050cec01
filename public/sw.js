// tcpscope's service worker: the app keeps working offline once it has been loaded
// (issue 8). Plain JS in public/ so that it is served from the site root with a fixed
// name (a service worker's scope is its own directory). Registered by web/sw-register.ts.
//
// The app shell only (issue 18, item 2): the pages, Vite's hashed assets (scripts,
// styles, the decoder worker and its wasm) and the icon. Never a capture: not an
// example, not a file named by #url= (same-origin or not), nothing from another
// origin — a capture someone opened must not stay behind in Cache Storage. Network
// first, so a new deploy is picked up at once; when the network fails, a cached copy
// answers.
//
// Upgrades are atomic (issue 45, item 7): a version of a page is its HTML plus every
// asset it names (scripts, styles, and what those scripts name: the decoder worker, its
// wasm; two levels). A version is fetched into a cache of its own and used offline only
// once all of it is there (the `complete` mark); until then the previous complete version
// answers. A dropped connection between a new index.html and its script used to leave the
// new page cached with no script: offline, a blank page. Once a version is complete, the
// older versions of that page are deleted (old hashed assets never stayed behind).

// v3: one cache per page version (tcpscope-v3:<page>:<hash>) and a pointer cache;
// activating v3 deletes v2's single cache.
const PREFIX = 'tcpscope-v3';
const POINTERS = `${PREFIX}:current`;
/** Vite's hashed asset names, as they appear inside the built pages and scripts. */
const ASSET_NAME = /[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(?:js|css|wasm|svg|woff2)/g;

/** Shell paths below the service worker's directory: the directory itself (the app
 *  page), the two pages, the icon and hashed assets. Everything else is passed through. */
const SHELL_PATH = /^(?:|index\.html|embed\.html|favicon\.svg|assets\/[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(?:js|css|wasm|svg|woff2))$/;
const scopeUrl = new URL('./', self.location.href);
const scopePath = scopeUrl.pathname;
const relative = (url) => new URL(url, self.location.href).pathname.slice(scopePath.length);
const isShell = (url) => {
  const parsed = new URL(url, self.location.href);
  return parsed.origin === self.location.origin && parsed.pathname.startsWith(scopePath) && SHELL_PATH.test(relative(url));
};
/** The page a shell URL is (the directory is index.html), or null for an asset. */
const pageOf = (url) => {
  const path = relative(url);
  if (path === '' || path === 'index.html') return 'index.html';
  if (path === 'embed.html') return 'embed.html';
  return null;
};

/** A short hash of a page's text (FNV-1a): its version. */
function versionOf(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const cacheName = (page, version) => `${PREFIX}:${page}:${version}`;
const pointerKey = (page) => new URL(`__current/${page}`, scopeUrl).href;
const COMPLETE = () => new URL('__complete', scopeUrl).href;

/** The complete version of `page` in use offline, or null. */
async function currentVersion(page) {
  const hit = await (await caches.open(POINTERS)).match(pointerKey(page));
  return hit ? hit.text() : null;
}

/** Versions being fetched (page:version → promise): one fetch of a version at a time. */
const pending = new Map();

/**
 * Fetches `page` (its HTML `html`, as just received from the network) and every asset it
 * names into the version's own cache; marks it complete and points to it only when all
 * of them arrived; then deletes the page's older versions. Any failure leaves the
 * previous complete version in use (and the partial cache is removed).
 */
function cacheVersion(page, pageUrl, html) {
  const version = versionOf(html);
  const key = `${page}:${version}`;
  if (!pending.has(key)) {
    pending.set(key, commitVersion(page, pageUrl, html, version).finally(() => pending.delete(key)));
  }
  return pending.get(key);
}

async function commitVersion(page, pageUrl, html, version) {
  const name = cacheName(page, version);
  if ((await currentVersion(page)) === version) return true;
  const cache = await caches.open(name);
  try {
    await cache.put(new URL(page === 'index.html' ? './' : page, scopeUrl).href, new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }));
    await cache.put(new URL(page, scopeUrl).href, new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }));
    // Level 0: what the page names; levels 1-2: what its scripts name (worker, wasm).
    let names = [...new Set(html.match(ASSET_NAME) ?? [])].map((n) => new URL(`assets/${n}`, scopeUrl).href);
    const done = new Set();
    for (let depth = 0; depth < 3 && names.length; depth++) {
      const next = new Set();
      await Promise.all(names.map(async (url) => {
        done.add(url);
        // All or nothing: an asset that does not arrive (the connection dropped, the
        // server failed) and the version is not used. A name found inside a script that
        // the server does not have (404 below level 0) is text that only looks like one.
        const response = await fetch(url, { cache: 'no-cache' });
        if (response.status === 404 && depth > 0) return;
        if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
        const body = await response.clone().arrayBuffer();
        await cache.put(url, new Response(body, { headers: response.headers }));
        if (url.endsWith('.js')) {
          for (const n of new TextDecoder().decode(body).match(ASSET_NAME) ?? []) {
            const named = new URL(`assets/${n}`, scopeUrl).href;
            if (!done.has(named)) next.add(named);
          }
        }
      }));
      names = [...next];
    }
    await cache.put(COMPLETE(), new Response(String(Date.now())));
    await (await caches.open(POINTERS)).put(pointerKey(page), new Response(version));
  } catch {
    await caches.delete(name);
    return false;
  }
  // The new version is complete: the older ones of this page go.
  for (const k of await caches.keys()) {
    if (k.startsWith(`${PREFIX}:${page}:`) && k !== name) await caches.delete(k);
  }
  return true;
}

/** What the complete versions hold for `url` (the current version of its page first). */
async function cachedAnswer(url, navigate) {
  const page = pageOf(url) ?? (navigate ? 'index.html' : null);
  const pages = page ? [page, ...['index.html', 'embed.html'].filter((p) => p !== page)] : ['index.html', 'embed.html'];
  for (const p of pages) {
    const version = await currentVersion(p);
    if (!version) continue;
    const cache = await caches.open(cacheName(p, version));
    if (!(await cache.match(COMPLETE()))) continue;
    const lookup = page && p === page ? new URL(page === 'index.html' ? './' : page, scopeUrl).href : url;
    const hit = await cache.match(lookup, { ignoreSearch: true, ignoreVary: true });
    if (hit) return hit;
  }
  return null;
}

self.addEventListener('install', (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      // Caches of earlier service workers (tcpscope-v1, tcpscope-v2): their layout is not ours.
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('tcpscope-') && !k.startsWith(`${PREFIX}:`)).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** The page (and what it names) as the page itself loaded it: sent once the worker runs. */
async function cachePages(urls) {
  const pages = urls.filter((u) => isShell(u) && pageOf(u));
  const results = await Promise.all(pages.map(async (url) => {
    try {
      const response = await fetch(url, { cache: 'no-cache' });
      if (response.status !== 200) return false;
      return cacheVersion(pageOf(url), url, await response.text());
    } catch {
      return false;
    }
  }));
  return results.length > 0 && results.every(Boolean);
}

self.addEventListener('message', (event) => {
  if (event.data?.type !== 'cache' || !Array.isArray(event.data.urls)) return;
  const urls = event.data.urls.filter((u) => typeof u === 'string');
  event.waitUntil(cachePages(urls).then((ok) => ok && event.source?.postMessage({ type: 'cached' })));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !isShell(request.url) || request.headers.has('range')) return;
  const page = pageOf(request.url);
  event.respondWith(
    fetch(request)
      .then((response) => {
        // A page from the network starts caching its version (never used until complete).
        if (page && response.status === 200 && response.type === 'basic') {
          const copy = response.clone();
          event.waitUntil(copy.text().then((html) => cacheVersion(page, request.url, html)).catch(() => {}));
        }
        return response;
      })
      .catch(async () => (await cachedAnswer(request.url, request.mode === 'navigate')) ?? Response.error()),
  );
});
