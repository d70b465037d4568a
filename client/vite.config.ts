import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const sharedSrc = fileURLToPath(new URL('../shared/src/', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@parley/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)) } },
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    sourcemap: true,
    target: 'es2022',
    rollupOptions: {
      // shared/ modules only declare constants and schemas: importing one constant from the
      // barrel must not drag zod into a chunk (the /login budget is 120 KB gzip).
      treeshake: { moduleSideEffects: (id: string) => !id.startsWith(sharedSrc) },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/storage': 'http://localhost:3000', '/socket.io': { target: 'http://localhost:3000', ws: true } } },
});
