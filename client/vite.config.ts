import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  resolve: { alias: { '@parley/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)) } },
  esbuild: { jsx: 'automatic' },
  build: { outDir: 'dist', sourcemap: true, target: 'es2022' },
  server: { proxy: { '/api': 'http://localhost:3000', '/storage': 'http://localhost:3000', '/socket.io': { target: 'http://localhost:3000', ws: true } } },
});
