/// <reference types="vitest/config" />
import { defineConfig, searchForWorkspaceRoot } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const wasmPkg = fileURLToPath(new URL('./wasm/pkg', import.meta.url));

// The app lives in web/ (index.html, embed.html); static assets and example
// captures in public/. The wasm package is built by wasm-pack into wasm/pkg and
// imported through the `tcpscope-wasm` alias (no npm link needed).
export default defineConfig({
  root: 'web',
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  base: './',
  plugins: [react()],
  resolve: { alias: { 'tcpscope-wasm': `${wasmPkg}/tcpscope_core.js` } },
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  server: { fs: { allow: [searchForWorkspaceRoot(process.cwd()), wasmPkg] } },
  test: {
    root: '.',
    include: ['web/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
