// Bundles the widget loader into dist/widget.js (served by the server at /widget.js).
import { build } from 'esbuild';

await build({
  entryPoints: { widget: 'src/loader.ts' },
  outdir: 'dist',
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2019'],
  sourcemap: true,
  legalComments: 'none',
});
console.log('widget built: dist/widget.js');
