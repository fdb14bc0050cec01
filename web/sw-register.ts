// Offline support (issue 8): registers public/sw.js in production builds, then hands
// it the list of files this page loaded before it was running, to cache. Sets
// <html data-offline="ready"> once they are cached (e2e/hostile.spec.ts waits on it).
// Imported for its effect by web/main.tsx: `import './sw-register';`.
// CSP: the service worker is a same-origin script (worker-src 'self'); nothing inline.

export async function registerServiceWorker(): Promise<void> {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  try {
    await navigator.serviceWorker.register(new URL('sw.js', document.baseURI), { scope: './' });
    const registration = await navigator.serviceWorker.ready;
    navigator.serviceWorker.addEventListener('message', (event) => {
      if ((event.data as { type?: string } | null)?.type === 'cached') document.documentElement.dataset.offline = 'ready';
    });
    const urls = [document.baseURI, location.href.split('#')[0], ...performance.getEntriesByType('resource').map((e) => e.name)]
      .filter((u) => new URL(u).origin === location.origin);
    registration.active?.postMessage({ type: 'cache', urls: [...new Set(urls)] });
  } catch {
    // Offline use is a bonus: a browser or a policy that refuses service workers
    // changes nothing else.
  }
}

if (document.readyState === 'complete') void registerServiceWorker();
else window.addEventListener('load', () => void registerServiceWorker(), { once: true });
