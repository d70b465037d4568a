// Runs run.ts without a TypeScript runner installed: esbuild (already a dependency of the
// workspace) bundles it with the server's engine into a temporary file, then Node imports it.
import { build } from 'esbuild';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(os.tmpdir(), `parley-ai-eval-${process.pid}.mjs`);
await build({ entryPoints: [path.join(here, 'run.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error', define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(here, 'run.ts')).href) } });
await import(pathToFileURL(out).href);
