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

/** A capture arriving by address: its bytes as they come, and the announced size. */
export interface CaptureStream {
  /** Content-Length, 0 when the server did not say (a stream may also send less or more). */
  total: number;
  /** The body's chunks in order. Throws FetchCancelled when `signal` aborts,
   *  FetchCaptureError past `maxBytes` or when the connection fails midway (the message
   *  says how much had arrived); leaving the loop early cancels the request. */
  chunks: AsyncGenerator<Uint8Array>;
}

/**
 * Opens the capture at `url` and hands its body over as it arrives (issue 45, item 6):
 * the page streams it into the decoder (DecoderClient.openStream), as a dropped file is
 * read in slices, so nothing waits for the whole body and nothing holds it. Refusals,
 * HTTP errors and an announced size past `maxBytes` are thrown here, before any byte.
 */
export async function streamCapture(url: string, pageOrigin = globalThis.location?.origin ?? '', options: FetchOptions = {}): Promise<CaptureStream> {
  const refusal = refusalOf(url, pageOrigin);
  if (refusal) throw new FetchCaptureError(refusal);
  const { signal, onProgress, maxBytes = MAX_FETCH_BYTES } = options;
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', signal });
  } catch (error) {
    if (signal?.aborted) throw new FetchCancelled();
    // fetch() says only "Failed to fetch": offline, DNS, TLS, or a server that does not
    // allow cross-origin reads (CORS) all look the same from here.
    void error;
    throw new FetchCaptureError(`Could not fetch ${echo(url)}: the network failed, or the server does not allow other sites to read it (CORS).`);
  }
  if (!response.ok) throw new FetchCaptureError(`Could not fetch ${echo(url)}: HTTP ${response.status} ${echo(response.statusText)}`.trim());
  const announced = Number(response.headers.get('content-length') ?? 0);
  const total = Number.isFinite(announced) && announced > 0 ? announced : 0;
  if (total > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new FetchCaptureError(`${echo(url)} was not opened: it is ${formatSize(total)}, more than the ${formatSize(maxBytes)} a capture fetched by address may be.`);
  }
  const body = response.body ?? new Blob([]).stream();
  return { total, chunks: bodyChunks(url, body.getReader(), { signal, onProgress, maxBytes }, total) };
}

async function* bodyChunks(url: string, reader: ReadableStreamDefaultReader<Uint8Array>, options: Required<Pick<FetchOptions, 'maxBytes'>> & FetchOptions, total: number): AsyncGenerator<Uint8Array> {
  const { signal, onProgress, maxBytes } = options;
  let received = 0;
  onProgress?.(0, total);
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        if (signal?.aborted) throw new FetchCancelled();
        // The connection dropped (or the server reset it) after part of the body:
        // one line, saying how far it came; what arrived stays decoded.
        throw new FetchCaptureError(`Could not fetch ${echo(url)}: the network failed after ${formatSize(received)} had arrived.`);
      }
      if (chunk.done) return;
      received += chunk.value.byteLength;
      if (received > maxBytes) {
        // An endless (or lying) stream: the cap ends it; the bytes before it are kept.
        throw new FetchCaptureError(`${echo(url)} was stopped after ${formatSize(received - chunk.value.byteLength)}: a capture fetched by address may be at most ${formatSize(maxBytes)}, and it sent more.`);
      }
      onProgress?.(received, total);
      yield chunk.value;
    }
  } finally {
    // Done, failed, cancelled, or the caller left the loop (the decoder stopped, another
    // capture was opened): the request ends here, nothing more is downloaded.
    reader.cancel().catch(() => {});
  }
}

/**
 * The capture at `url` as one Blob (the compare view's second capture): streamCapture's
 * chunks joined as a Blob's parts, so the bytes are the browser's blob storage's (paged
 * to disk when large). Same refusals, cap, cancel and one-line messages.
 */
export async function fetchCapture(url: string, pageOrigin = globalThis.location?.origin ?? '', options: FetchOptions = {}): Promise<Blob> {
  const { chunks } = await streamCapture(url, pageOrigin, options);
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return new Blob(parts as BlobPart[], { type: 'application/octet-stream' });
}

/** The reader pressed Cancel while the capture was still arriving. */
export class FetchCancelled extends Error {
  constructor() {
    super('Cancelled');
    this.name = 'FetchCancelled';
  }
}

const formatSize = (bytes: number) => (bytes >= 1024 ** 3 ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB`
  : bytes >= 1024 ** 2 ? `${+(bytes / 1024 ** 2).toFixed(1)} MiB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`);

/** The address of a bundled example capture (public/examples/). */
export function exampleUrl(file: string): string {
  return new URL(`examples/${encodeURIComponent(file)}`, document.baseURI).href;
}
