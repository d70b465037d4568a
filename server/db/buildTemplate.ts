import { TEMPLATE_DIR, makeTemplate } from './pgliteTemplate.js';

/**
 * `npm run build` (after tsc): the embedded database's template (db/pgliteTemplate.ts). Never
 * fails the build: without a template, a first start runs initdb and the migrations as before.
 */
const started = Date.now();
try {
  await makeTemplate();
  console.log(`PGlite template made in ${((Date.now() - started) / 1000).toFixed(1)} s: ${TEMPLATE_DIR}`);
} catch (e) {
  console.warn(`No PGlite template (a first start will run initdb and the migrations): ${(e as Error).message}`);
}
