import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
// @ts-expect-error plain ES module without types, shared with the widget's build
import { precompress } from '../widget/precompress.mjs';

const sharedSrc = fileURLToPath(new URL('../shared/src/', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@parley/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)) } },
  esbuild: { jsx: 'automatic' },
  // .br/.gz beside each built file, served as they are (server/plugins/webApp.ts).
  plugins: [{ name: 'parley-precompress', apply: 'build', closeBundle: () => void precompress(fileURLToPath(new URL('dist/', import.meta.url))) }],
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
