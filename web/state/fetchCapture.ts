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

/** Most bytes a capture fetched by address may have (issue 45, item 6): a dropped file's
 *  bytes are the reader's own, an address's are a server's, and an endless response must
 *  end. docs/DEPLOY.md "Limits" lists it. */
export const MAX_FETCH_BYTES = 2 * 1024 ** 3;

export interface FetchOptions {
  /** Cancel: aborts the request and the body still arriving. */
  signal?: AbortSignal;
  /** Bytes received so far, and the announced total (Content-Length; 0 when unknown). */
  onProgress?: (received: number, total: number) => void;
  maxBytes?: number;
}

/**
 * The capture at `url`, read as it arrives (the body's stream, not `response.blob()`,
 * which gave no progress, no cancel and no bound): each chunk joins a Blob's parts, so
 * the bytes are the browser's blob storage's (paged to disk when large), and the decoder
 * reads them in slices as it reads a dropped file. Cancel (`signal`) aborts the fetch at
 * once; more than `maxBytes` stops it with a message; a network failure is one line.
 */
export async function fetchCapture(url: string, pageOrigin = globalThis.location?.origin ?? '', options: FetchOptions = {}): Promise<Blob> {
  const refusal = refusalOf(url, pageOrigin);
  if (refusal) throw new FetchCaptureError(refusal);
  const { signal, onProgress, maxBytes = MAX_FETCH_BYTES } = options;
  const failed = () => new FetchCaptureError(`Could not fetch ${echo(url)}: the network failed, or the server does not allow other sites to read it (CORS).`);
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', signal });
  } catch (error) {
    if (signal?.aborted) throw new FetchCancelled();
    // fetch() says only "Failed to fetch": offline, DNS, TLS, or a server that does not
    // allow cross-origin reads (CORS) all look the same from here.
    void error;
    throw failed();
  }
  if (!response.ok) throw new FetchCaptureError(`Could not fetch ${echo(url)}: HTTP ${response.status} ${echo(response.statusText)}`.trim());
  const announced = Number(response.headers.get('content-length') ?? 0);
  const total = Number.isFinite(announced) && announced > 0 ? announced : 0;
  if (total > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new FetchCaptureError(`${echo(url)} was not opened: it is ${formatSize(total)}, more than the ${formatSize(maxBytes)} a capture fetched by address may be.`);
  }
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let received = 0;
  onProgress?.(0, total);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        throw new FetchCaptureError(`${echo(url)} was stopped: it sent more than the ${formatSize(maxBytes)} a capture fetched by address may be.`);
      }
      parts.push(value);
      onProgress?.(received, total);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    if (signal?.aborted) throw new FetchCancelled();
    if (error instanceof FetchCaptureError) throw error;
    throw failed();
  }
  return new Blob(parts as BlobPart[], { type: 'application/octet-stream' });
}

/** The reader pressed Cancel while the capture was still arriving. */
export class FetchCancelled extends Error {
  constructor() {
    super('Cancelled');
    this.name = 'FetchCancelled';
  }
}

const formatSize = (bytes: number) => (bytes >= 1024 ** 3 ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB` : `${+(bytes / 1024 ** 2).toFixed(1)} MiB`);

/** The address of a bundled example capture (public/examples/). */
export function exampleUrl(file: string): string {
  return new URL(`examples/${encodeURIComponent(file)}`, document.baseURI).href;
}
