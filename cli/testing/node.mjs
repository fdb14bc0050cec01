// How the CLI tests start bin/tcpscope.mjs in a child process: `node --liftoff-only`, V8's
// baseline wasm compiler only, as e2e/cli.ts and the page under Playwright do (issue 42
// item 1). Each child compiled the engine's hot functions again with the optimising
// compiler (the engine's warm-up, wasm/src/warm_up.rs, makes it do so at once), work the
// tests' small captures never pay back: `analyze public/examples/stalls.pcap --json`
// 1.4 → 0.2 CPU-s, `analyze public/examples` (the whole folder) 2.8 → 1.9. The same wasm
// module, the same output: the flag chooses how V8 compiles it, not what it computes.
// scripts/test.sh runs the test files themselves with the same flag (node --liftoff-only
// --test), which a child started with NODE_ARGS does not inherit.
export const NODE_ARGS = ['--liftoff-only'];
