/**
 * The console's build: one page under `/console/`, every asset a file of its own (nothing
 * inlined as a data URL, no inline script), so the server can serve it with `default-src 'self'`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  // The workspace packages are bundled from their TypeScript sources, so the console builds before them.
  resolve: { conditions: ['@runload/source', 'module', 'browser', 'development|production'] },
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
});
