// Fetching a capture the page was asked to open by address (#url=, #ex=). The one
// place that turns a fetch failure into a sentence for people: it names the address
// (cut to MAX_ECHO_CHARS) and the likely reason, never echoes a megabyte of link.
import { echo } from './url';

/** A fetch refused or failed; `message` is meant for the user as is. */
export class FetchCaptureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchCaptureError';
  }
}

/** Why the page will not fetch `url`, or null. http: travels in clear and mixed
 *  content is blocked on https pages; the CSP allows it only from our own origin
 *  (docs/DEPLOY.md, connect-src). */
export function refusalOf(url: string, pageOrigin: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, pageOrigin);
  } catch {
    return `${echo(url)} is not an address.`;
  }
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && parsed.origin === pageOrigin) return null;
  if (parsed.protocol === 'http:') return `${echo(url)} was not opened: captures from other sites are fetched over https: only.`;
  return `${echo(url)} was not opened: only https: addresses can be fetched, not ${echo(parsed.protocol)}.`;
}

export async function fetchCapture(url: string, pageOrigin = globalThis.location?.origin ?? ''): Promise<Blob> {
  const refusal = refusalOf(url, pageOrigin);
  if (refusal) throw new FetchCaptureError(refusal);
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch {
    // fetch() says only "Failed to fetch": offline, DNS, TLS, or a server that does not
    // allow cross-origin reads (CORS) all look the same from here.
    throw new FetchCaptureError(`Could not fetch ${echo(url)}: the network failed, or the server does not allow other sites to read it (CORS).`);
  }
  if (!response.ok) throw new FetchCaptureError(`Could not fetch ${echo(url)}: HTTP ${response.status} ${echo(response.statusText)}`.trim());
  return response.blob();
}

/** The address of a bundled example capture (public/examples/). */
export function exampleUrl(file: string): string {
  return new URL(`examples/${encodeURIComponent(file)}`, document.baseURI).href;
}
