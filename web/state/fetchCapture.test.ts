import { describe, expect, it } from 'vitest';
import { FetchCancelled, FetchCaptureError, fetchCapture, refusalOf } from './fetchCapture';
import { MAX_ECHO_CHARS } from './url';

const page = 'https://tcpscope.example';

describe('fetchCapture refusals (issue 18, item 3)', () => {
  it.each([
    ['https://other.example/a.pcap', null],
    ['https://tcpscope.example/examples/a.pcap', null],
    ['http://other.example/a.pcap', 'http://other.example/a.pcap was not opened: captures from other sites are fetched over https: only.'],
    ['javascript:alert(1)', 'javascript:alert(1) was not opened: only https: addresses can be fetched, not javascript:.'],
    ['data:application/octet-stream,AAAA', 'data:application/octet-stream,AAAA was not opened: only https: addresses can be fetched, not data:.'],
    ['file:///etc/passwd', 'file:///etc/passwd was not opened: only https: addresses can be fetched, not file:.'],
  ])('%s', (url, expected) => {
    expect(refusalOf(url, page)).toBe(expected);
  });

  it('accepts http: from the page\'s own origin (local preview)', () => {
    expect(refusalOf('http://127.0.0.1:4173/examples/a.pcap', 'http://127.0.0.1:4173')).toBeNull();
  });

  it('cuts a 1 MB address to a one-line message', () => {
    const huge = `javascript:${'x'.repeat(1_000_000)}`;
    const message = refusalOf(huge, page)!;
    expect(message.length).toBeLessThan(MAX_ECHO_CHARS + 200);
    expect(message).not.toContain('\n');
  });
});

describe('#url= as it arrives (issue 45, item 6)', () => {
  const url = 'https://captures.example/endless.pcap';
  /** A server sending `chunk` bytes every `everyMs` for ever; counts what it sent after `cancelled` is set. */
  function endless(chunk: number, everyMs: number) {
    const state = { sent: 0, cancelled: false, sentAfterCancel: 0, aborted: false };
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const signal = init?.signal;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, everyMs));
          if (signal?.aborted) {
            state.aborted = true;
            controller.error(new DOMException('aborted', 'AbortError'));
            return;
          }
          state.sent += chunk;
          if (state.cancelled) state.sentAfterCancel += chunk;
          controller.enqueue(new Uint8Array(chunk));
        },
      });
      return new Response(body, { status: 200 });
    }) as typeof fetch;
    return { state, restore: () => { globalThis.fetch = realFetch; } };
  }

  it('Cancel aborts an endless slow download at once, and nothing more arrives', async () => {
    const { state, restore } = endless(1024, 5);
    try {
      const controller = new AbortController();
      const seen: number[] = [];
      const fetching = fetchCapture(url, 'https://tcpscope.example', { signal: controller.signal, onProgress: (n) => seen.push(n) });
      await new Promise((r) => setTimeout(r, 60));
      state.cancelled = true;
      controller.abort();
      await expect(fetching).rejects.toBeInstanceOf(FetchCancelled);
      const after = state.sentAfterCancel;
      await new Promise((r) => setTimeout(r, 60));
      expect(state.sentAfterCancel).toBe(after);
      expect(after).toBeLessThanOrEqual(2 * 1024);
      expect(Math.max(...seen)).toBeGreaterThan(0); // progress while it arrived, not "0 B of 0 B"
    } finally {
      restore();
    }
  });

  it('an endless fast download stops at the cap with a one-line message', async () => {
    const { restore } = endless(64 * 1024, 0);
    try {
      const error = await fetchCapture(url, 'https://tcpscope.example', { maxBytes: 1024 * 1024 }).catch((e) => e);
      expect(error).toBeInstanceOf(FetchCaptureError);
      expect(error.message).toBe('https://captures.example/endless.pcap was stopped after 1 MiB: a capture fetched by address may be at most 1 MiB, and it sent more.');
    } finally {
      restore();
    }
  });

  it('a connection that drops mid-body is the one-line network message, not "Failed to fetch"', async () => {
    const realFetch = globalThis.fetch;
    let pulls = 0;
    globalThis.fetch = (async () => new Response(new ReadableStream({
      pull(controller) {
        if (pulls++ > 2) controller.error(new TypeError('Failed to fetch'));
        else controller.enqueue(new Uint8Array(10));
      },
    }))) as typeof fetch;
    try {
      const error = await fetchCapture(url, 'https://tcpscope.example').catch((e) => e);
      expect(error).toBeInstanceOf(FetchCaptureError);
      expect(error.message).toBe('Could not fetch https://captures.example/endless.pcap: the network failed after 30 B had arrived.');
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
