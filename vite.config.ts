/// <reference types="vitest/config" />
import { defineConfig, searchForWorkspaceRoot, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const wasmPkg = fileURLToPath(new URL('./wasm/pkg', import.meta.url));

// Content-Security-Policy of the built pages (not of `vite dev`, whose hot reload
// needs inline scripts). No inline or remote scripts; wasm compilation allowed;
// fetches go to this origin (examples) or to the capture URL the user named (#url=).
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' https: http:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

const cspPlugin: Plugin = {
  name: 'tcpscope-csp',
  apply: 'build',
  transformIndexHtml: (html) =>
    html.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />`),
};

// The app lives in web/ (index.html, embed.html); static assets and example
// captures in public/. The wasm package is built by wasm-pack into wasm/pkg and
// imported through the `tcpscope-wasm` alias (no npm link needed).
export default defineConfig({
  root: 'web',
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  base: './',
  plugins: [react(), cspPlugin],
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
  },
});
