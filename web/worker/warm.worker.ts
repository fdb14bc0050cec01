// The engine's warm-up on a thread of its own (issue 41). V8 compiles a wasm function
// with its optimising compiler only after it has run a while, and a call already
// running keeps its baseline code (wasm/src/warm_up.rs): the decoder worker used to run
// a small synthetic capture through the whole engine when it started, in stages, and a
// capture dropped meanwhile waited for the stage under way (the end-of-capture stage
// took 0.1–0.3 s on a loaded 2-core machine, bench/README.md). Here the same warm-up
// runs on an instance of the decoder's own compiled module (the decoder sends its
// `WebAssembly.Module`): the optimised code V8 makes belongs to the module, so the
// decoder's instance runs it too, and the decoder thread is free for the drop.
// The page starts this worker beside the decoder (client.ts startWarmer, not nested
// in the decoder: Firefox ESR sometimes hung on a nested `new Worker()`, chunks.ts)
// and hands each one end of a MessageChannel; the worker closes itself when done.
import init, { warmUpStep } from 'tcpscope-wasm';

export type ToWarmer = { type: 'port'; port: MessagePort };
/** Decoder → warmer: the module to warm up. */
export type WarmModule = { type: 'module'; module: WebAssembly.Module };
export type FromWarmer = { type: 'warm'; ms: number } | { type: 'failed'; message: string };

self.onmessage = (event: MessageEvent<ToWarmer>) => {
  const port = event.data.port;
  port.onmessage = async (e: MessageEvent<WarmModule>) => {
    try {
      await init({ module_or_path: e.data.module });
      const started = performance.now();
      while (warmUpStep());
      port.postMessage({ type: 'warm', ms: performance.now() - started } satisfies FromWarmer);
    } catch (error) {
      port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromWarmer);
    }
    port.close();
    self.close();
  };
};
