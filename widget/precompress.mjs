// Writes file.br (brotli 11) and file.gz (gzip 9) beside each built text file, so the server
// sends them as they are (@fastify/static preCompressed) instead of compressing per request.
// Used by the widget's build.mjs and the console's vite.config.ts. Stale siblings are removed.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TEXT = /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/;

/** Precompresses every text file under dir (source maps excluded); returns the files written. */
export function precompress(dir) {
  const written = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) {
        walk(file);
        continue;
      }
      if (/\.(br|gz)$/.test(name)) {
        if (!existsSync(file.slice(0, -3))) rmSync(file);
        continue;
      }
      if (!TEXT.test(name)) continue;
      const raw = readFileSync(file);
      const variants = {
        br: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
        gz: gzipSync(raw, { level: 9 }),
      };
      for (const [ext, bytes] of Object.entries(variants)) {
        // Only when it saves bytes: otherwise the plain file is sent.
        if (bytes.length < raw.length) {
          writeFileSync(`${file}.${ext}`, bytes);
          written.push(`${file}.${ext}`);
        } else rmSync(`${file}.${ext}`, { force: true });
      }
    }
  };
  walk(dir);
  return written;
}
