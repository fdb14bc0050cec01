// The static renderer's Node bundle (`tcpscope render`, cli/render.mjs): the page's
// chart code (TSX, React, D3) built for Node into build/render/, which `npm pack`
// ships. jsdom stays outside the bundle (a dependency: it reads its own files at run time).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  plugins: [react()],
  publicDir: false,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  ssr: { noExternal: true, external: ['jsdom'] },
  build: {
    ssr: fileURLToPath(new URL('./web/render/node.tsx', import.meta.url)),
    outDir: fileURLToPath(new URL('./build/render', import.meta.url)),
    emptyOutDir: true,
    target: 'node20',
    minify: true,
    rolldownOptions: { output: { entryFileNames: 'render.mjs', chunkFileNames: '[name].mjs' } },
  },
  logLevel: 'warn',
});
