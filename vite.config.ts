/// <reference types="vitest/config" />
import { defineConfig, searchForWorkspaceRoot, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { captureContentType, metaCsp, pageOf, securityHeaders } from './web/security/policy.ts';

const wasmPkg = fileURLToPath(new URL('./wasm/pkg', import.meta.url));

// Security headers (web/security/policy.ts defines them once): the built pages carry
// the CSP as a <meta> too, for static hosts that send no headers (not `vite dev`,
// whose hot reload needs inline scripts); `vite preview` sends every header.
const cspPlugin: Plugin = {
  name: 'tcpscope-csp',
  apply: 'build',
  transformIndexHtml: (html) =>
    html.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${metaCsp()}" />`),
};

const headersPlugin: Plugin = {
  name: 'tcpscope-security-headers',
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      const page = pageOf(new URL(req.url ?? '/', 'http://localhost').pathname);
      for (const [name, value] of Object.entries(securityHeaders(page))) res.setHeader(name, value);
      next();
    });
  },
};

// Captures (.pcap/.pcapng) are sent with their registered Content-Type by `vite dev`
// and `vite preview` (web/security/policy.ts; public/_headers for static hosts). The
// static file server writes its own (empty for these extensions) in writeHead, so the
// type is put into the headers it passes there.
function sendCaptureType(res: ServerResponse, type: string) {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && !Array.isArray(a));
    if (headers) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    res.setHeader('Content-Type', type);
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

function captureType(req: IncomingMessage, res: ServerResponse, next: () => void) {
  const type = captureContentType(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (type) sendCaptureType(res, type);
  next();
}

const captureTypePlugin: Plugin = {
  name: 'tcpscope-capture-content-type',
  configureServer: (server) => void server.middlewares.use(captureType),
  configurePreviewServer: (server) => void server.middlewares.use(captureType),
};

// The app lives in web/ (index.html, embed.html); static assets and example
// captures in public/. The wasm package is built by wasm-pack into wasm/pkg and
// imported through the `tcpscope-wasm` alias (no npm link needed).
export default defineConfig({
  root: 'web',
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  base: './',
  plugins: [react(), cspPlugin, headersPlugin, captureTypePlugin],
  resolve: { alias: { 'tcpscope-wasm': `${wasmPkg}/tcpscope_core.js` } },
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Two pages: the app and the minimal-chrome embed (iframe) page.
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('./web/index.html', import.meta.url)),
        embed: fileURLToPath(new URL('./web/embed.html', import.meta.url)),
      },
    },
  },
  server: { fs: { allow: [searchForWorkspaceRoot(process.cwd()), wasmPkg] } },
  test: {
    root: '.',
    include: ['web/**/*.test.{ts,tsx}'],
    environment: 'node',
    // npm test runs Vitest beside Playwright on two cores (scripts/test.sh): a test that
    // parses every source file or analyses a capture in-process takes 1-5 s alone and
    // more there. 5 s (the default) failed such a test on load, not on a fault; a hang
    // still fails.
    testTimeout: 30_000,
  },
});
