// Widget weight: raw, gzip and brotli bytes of what a visitor downloads, beside other widgets
// measured the same way in the same run. Run: node bench/widget-weight/run.mjs (after building).
// Targets: loader <= 2 KB gzip; loader + UI + transport <= 25 KB gzip.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'widget/dist');
const require = createRequire(path.join(root, 'package.json'));

function measure(files) {
  let raw = 0, gz = 0, br = 0;
  for (const f of files) {
    const bytes = readFileSync(f);
    raw += bytes.length;
    // Each file compressed on its own, as a server sends them (gzip -9, brotli quality 11).
    gz += gzipSync(bytes, { level: 9 }).length;
    br += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return { raw, gz, br };
}
const kb = (n) => `${(n / 1024).toFixed(2)} KB`.padStart(10);
function row(label, files, target) {
  if (!files) return console.log(`${label.padEnd(46)} not installed`);
  const { raw, gz, br } = measure(files);
  const verdict = target === undefined ? '' : gz <= target * 1024 ? `  <= ${target} KB target: ok` : `  > ${target} KB target: OVER`;
  console.log(`${label.padEnd(46)} raw ${kb(raw)}  gzip ${kb(gz)}  brotli ${kb(br)}${verdict}`);
}

/** Files of an installed npm package, or undefined when it is not installed. */
function pkgFiles(name, relFiles) {
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
  const files = relFiles(dir);
  return files.length && files.every((f) => existsSync(f)) ? files : undefined;
}

if (!existsSync(path.join(dist, 'widget.js'))) {
  console.error('widget/dist/widget.js is missing: run `npm run build -w widget` first');
  process.exit(1);
}
const loader = path.join(dist, 'widget.js');
const ui = readdirSync(dist).filter((f) => /^ui-[0-9a-f]+\.js$/.test(f)).map((f) => path.join(dist, f));
const langs = readdirSync(path.join(dist, 'lang')).map((f) => path.join(dist, 'lang', f));
const largestLang = langs.reduce((a, b) => (measure([b]).gz > measure([a]).gz ? b : a));

console.log('Widget weight (what a visitor downloads to chat)\n');
row('Parley loader (widget.js)', [loader], 2);
row('Parley loader + UI + transport (English)', [loader, ...ui], 25);
row(`Parley + largest language (${path.basename(largestLang).split('-')[0]})`, [loader, ...ui, largestLang], 25);
row('  for reference: socket.io-client (esm.min)', pkgFiles('socket.io-client', (d) => [path.join(d, 'dist/socket.io.esm.min.js')]));
console.log('');
// @rocket.chat/livechat: its loader script plus the widget bundle it loads into an iframe.
row(
  '@rocket.chat/livechat (script + widget bundle)',
  pkgFiles('@rocket.chat/livechat', (d) => {
    const build = path.join(d, 'build');
    if (!existsSync(build)) return [];
    return readdirSync(build).filter((f) => /^(rocketchat-livechat\.min\.js|bundle\..*\.js|polyfills\..*\.js)$/.test(f)).map((f) => path.join(build, f));
  }),
);
// @papercups-io/chat-widget: the embeddable widget bundle (React included) the docs load.
row(
  '@papercups-io/chat-widget (dist bundle)',
  pkgFiles('@papercups-io/chat-widget', (d) => {
    const candidates = ['dist/index.js', 'dist/index.modern.js'].map((f) => path.join(d, f)).filter(existsSync);
    return candidates.slice(0, 1);
  }),
);
