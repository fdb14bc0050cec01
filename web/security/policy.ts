// The HTTP security headers of tcpscope's pages, defined once: `vite preview` sends
// them (vite.config.ts), the built HTML carries the same CSP as a <meta> for hosts
// that send no headers, and public/_headers (Netlify / Cloudflare Pages format) plus
// the nginx snippet in docs/DEPLOY.md are checked against this file by its test.
//
// Why each CSP directive (W3C CSP Level 3):
// - script-src 'self' 'wasm-unsafe-eval': our bundles only; 'wasm-unsafe-eval' lets
//   the decoder compile its WebAssembly without allowing JS eval.
// - style-src 'self': no 'unsafe-inline'. React and D3 set styles through the CSSOM
//   (element.style), which a CSP does not restrict; no <style> or style="" markup.
// - worker-src 'self': the decoder worker and the service worker are our own files.
// - connect-src 'self' https:: 'self' covers the examples, the wasm and snapshots.
//   https: is there for one feature only, `#url=` (a capture the user names, fetched
//   from its own https server with CORS, never uploaded anywhere). A header cannot
//   see the fragment, so the widening is static; http: is not allowed (a link to an
//   http: capture is refused in the page with a message saying why).
// - frame-ancestors: the app may not be framed by anyone (clickjacking); embed.html
//   exists to be framed by blogs, so any ancestor may frame it.
// A CSP header on a worker script's response is the worker's policy (a meta CSP does
// not reach workers), which is why the headers apply to every file, not only pages.

export type Page = 'app' | 'embed';

const DIRECTIVES: readonly (readonly [string, string])[] = [
  ['default-src', "'self'"],
  ['script-src', "'self' 'wasm-unsafe-eval'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data: blob:"],
  ['font-src', "'self'"],
  ['connect-src', "'self' https:"],
  ['worker-src', "'self'"],
  ['manifest-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'self'"],
  ['form-action', "'none'"],
];

/** The CSP as a <meta> can carry it (frame-ancestors is ignored in <meta>). */
export function metaCsp(): string {
  return DIRECTIVES.map(([k, v]) => `${k} ${v}`).join('; ');
}

/** The full CSP header of a page (or of any other file: `app`). */
export function headerCsp(page: Page): string {
  return `${metaCsp()}; frame-ancestors ${page === 'embed' ? '*' : "'none'"}`;
}

/**
 * Device and sensor APIs the app never uses, off for it and anything it frames. Only
 * features Chromium recognises: it logs an error for any other on every load ("Unrecognized
 * feature: 'bluetooth'"; Web Bluetooth has no Permissions-Policy feature in Chromium, and
 * Firefox and Safari do not implement it at all).
 */
const PERMISSIONS_POLICY_FEATURES = ['camera', 'microphone', 'geolocation', 'usb', 'serial'] as const;
const PERMISSIONS_POLICY = PERMISSIONS_POLICY_FEATURES.map((f) => `${f}=()`).join(', ');

/** Every header a response gets. */
export function securityHeaders(page: Page): Record<string, string> {
  return {
    'Content-Security-Policy': headerCsp(page),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
  };
}

/** Which page a request path belongs to: the embed page is the only framable one. */
export function pageOf(pathname: string): Page {
  return /(^|\/)embed(\.html)?$/.test(pathname) ? 'embed' : 'app';
}

/** Captures served by the app (public/examples/, any .pcap/.pcapng of a host) carry
 *  IANA's registered type for pcap, which covers pcapng too; static servers that do
 *  not know the extension send none, or application/octet-stream. */
export const CAPTURE_CONTENT_TYPE = 'application/vnd.tcpdump.pcap';
const CAPTURE_EXTENSIONS = ['pcap', 'pcapng'];

/** The Content-Type a server must send for `pathname`, when it is a capture; else null. */
export function captureContentType(pathname: string): string | null {
  const ext = /\.([a-z]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return ext && CAPTURE_EXTENSIONS.includes(ext) ? CAPTURE_CONTENT_TYPE : null;
}

/** Paths that get the app's CSP on a static host: the page, its scripts (the
 *  decoder worker among them: its CSP is the worker's policy) and the service worker. */
const APP_PATHS = ['/', '/index.html', '/assets/*', '/sw.js'];
const EMBED_PATHS = ['/embed.html', '/embed'];
const COMMON: Page = 'app';

function common(): Record<string, string> {
  const { 'Content-Security-Policy': _csp, ...rest } = securityHeaders(COMMON);
  return rest;
}

/** public/_headers for Netlify and Cloudflare Pages. Both merge every rule that
 *  matches a path (joining a repeated header with a comma, which would make two
 *  CSPs), so the CSP is set per path and never on the catch-all rule. */
export function netlifyHeaders(): string {
  const block = (path: string, headers: Record<string, string>) =>
    [path, ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`)].join('\n');
  return [
    '# Generated from web/security/policy.ts (web/security/policy.test.ts fails when this file is stale).',
    block('/*', common()),
    ...APP_PATHS.map((p) => block(p, { 'Content-Security-Policy': headerCsp('app') })),
    ...EMBED_PATHS.map((p) => block(p, { 'Content-Security-Policy': headerCsp('embed') })),
    ...CAPTURE_EXTENSIONS.map((ext) => block(`/*.${ext}`, { 'Content-Type': CAPTURE_CONTENT_TYPE })),
    '',
  ].join('\n\n');
}

/** The nginx server-block snippet of docs/DEPLOY.md. nginx drops inherited
 *  add_header lines in a location that has its own, so each location repeats all. */
export function nginxSnippet(): string {
  const lines = (page: Page) =>
    Object.entries(securityHeaders(page)).map(([k, v]) => `    add_header ${k} "${v}" always;`);
  return [
    'location = /embed.html {',
    ...lines('embed'),
    '}',
    'location / {',
    ...lines('app'),
    '}',
  ].join('\n');
}
