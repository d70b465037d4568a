// Widget weight beside the competitors, measured the same way in the same run: raw, gzip -9 and
// brotli q11 bytes, each file compressed on its own as a server sends it.
// Run: node bench/widget-weight/compare.mjs (after `npm run build -w widget` and
// `npm install --prefix bench`, which installs the competitors into bench/node_modules).
// Targets (Parley): loader <= 2 KB gzip; loader + UI + transport <= 25 KB gzip.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const bench = path.resolve(here, '..');
const root = path.resolve(bench, '..');
const dist = path.join(root, 'widget/dist');
const benchRequire = createRequire(path.join(bench, 'package.json'));

/** A file to count: a path on disk, or bytes built in this run (bundled competitor code). */
const onDisk = (file, base) => ({ name: path.relative(base, file), bytes: readFileSync(file) });

function measure(items) {
  let raw = 0, gz = 0, br = 0;
  for (const { bytes } of items) {
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
    br += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return { raw, gz, br };
}
const kb = (n) => `${(n / 1024).toFixed(2)} KB`.padStart(11);
const rows = [];
function row(label, items, target) {
  const m = measure(items);
  const verdict = target === undefined ? '' : m.gz <= target * 1024 ? `  <= ${target} KB target: ok` : `  > ${target} KB target: OVER`;
  console.log(`${label.padEnd(52)} raw ${kb(m.raw)}  gzip ${kb(m.gz)}  brotli ${kb(m.br)}${verdict}`);
  rows.push({ label, ...m });
  return m;
}
function listFiles(items, indent = '    ') {
  for (const it of items) {
    const m = measure([it]);
    console.log(`${indent}${it.name.padEnd(56)} raw ${kb(m.raw)}  gzip ${kb(m.gz)}`);
  }
}
const pkgDir = (name) => {
  try {
    return path.dirname(benchRequire.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
};

// ---- Parley -------------------------------------------------------------------------------
if (!existsSync(path.join(dist, 'widget.js'))) {
  console.error('widget/dist/widget.js is missing: run `npm run build -w widget` first');
  process.exit(1);
}
const loader = onDisk(path.join(dist, 'widget.js'), dist);
// The UI module bundles the Socket.IO transport (there is no separate transport file).
// Count the UI file the loader names (a stale ui-*.js left in dist by an older build is not
// downloaded), and the language files of the hash the UI names.
const loaderText = loader.bytes.toString('utf8');
const uiName = loaderText.match(/ui-[0-9a-f]+\.js/)?.[0];
const ui = (uiName ? [uiName] : readdirSync(dist).filter((f) => /^ui-[0-9a-f]+\.js$/.test(f))).map((f) => onDisk(path.join(dist, f), dist));
const langHash = ui[0]?.bytes.toString('utf8').match(/lang\/\$\{\w+\}(-[0-9a-f]+\.js)/)?.[1];
const langs = readdirSync(path.join(dist, 'lang'))
  .filter((f) => !langHash || f.endsWith(langHash))
  .map((f) => onDisk(path.join(dist, 'lang', f), dist));
const largestLang = langs.reduce((a, b) => (measure([b]).gz > measure([a]).gz ? b : a));

console.log('Widget weight: what a visitor downloads to chat (each file gzip -9 / brotli 11 on its own)\n');
console.log('Parley (widget/dist)');
row('  loader (widget.js)', [loader], 2);
row('  loader + UI + transport (English)', [loader, ...ui], 25);
row(`  + largest language file (${path.basename(largestLang.name).split('-')[0]})`, [loader, ...ui, largestLang], 25);
console.log('  files counted:');
listFiles([loader, ...ui, largestLang], '    ');

// ---- @rocket.chat/livechat ----------------------------------------------------------------
// The host page loads rocketchat-livechat.min.js, which opens an iframe on build/index.html.
// That page loads 4 scripts synchronously, and its bundle then always loads chunks 4 and 5
// (JS + CSS: the app) before it renders; per-screen chunks (< 6 KB each) come on demand and
// are not counted, nor the Rocket.Chat server's own REST/DDP answers.
console.log('\n@rocket.chat/livechat');
const rcDir = pkgDir('@rocket.chat/livechat');
if (!rcDir) console.log('  not installed: npm install --prefix bench');
else {
  const build = path.join(rcDir, 'build');
  const version = JSON.parse(readFileSync(path.join(rcDir, 'package.json'), 'utf8')).version;
  const rcLoader = onDisk(path.join(build, 'rocketchat-livechat.min.js'), rcDir);
  const html = readFileSync(path.join(build, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script src="livechat\/([^"]+)"/g)].map((m) => m[1]);
  const bundleName = scripts.find((s) => /^bundle\./.test(s));
  const bundleSrc = readFileSync(path.join(build, bundleName), 'utf8');
  // The entry's Promise.all([r.e(4), r.e(5)]) and webpack's chunk-hash maps name the app chunks.
  const appChunkIds = [...new Set([...bundleSrc.matchAll(/\b[a-z]\.e\((\d+)\)/g)].map((m) => m[1]))];
  const all = readdirSync(build);
  const appChunks = all.filter((f) => appChunkIds.some((id) => new RegExp(`^${id}\\.chunk\\.[0-9a-f]+\\.(js|css)$`).test(f)));
  const frame = [path.join(build, 'index.html'), ...scripts.map((s) => path.join(build, s)), ...appChunks.map((f) => path.join(build, f))].map((f) =>
    onDisk(f, rcDir),
  );
  row(`  loader (rocketchat-livechat.min.js) v${version}`, [rcLoader]);
  row('  loader + iframe page + scripts + app chunks', [rcLoader, ...frame]);
  console.log('  files counted:');
  listFiles([rcLoader, ...frame]);
  const onDemand = all.filter((f) => /^\d+\.chunk\.[0-9a-f]+\.js$/.test(f) && !appChunks.includes(f));
  const od = measure(onDemand.map((f) => onDisk(path.join(build, f), rcDir)));
  console.log(`  not counted: ${onDemand.length} on-demand screen chunks (together ${kb(od.gz).trim()} gzip)`);
}

// ---- @papercups-io/chat-widget ------------------------------------------------------------
// An npm React component: the host page bundles it with its dependencies (and React, unless
// the site already has it); the chat itself runs in an iframe served from
// chat-widget.papercups.io, which is not on npm and so not counted: these figures are a LOWER
// bound of what a Papercups visitor downloads. Bundled here with esbuild (minified, production).
console.log('\n@papercups-io/chat-widget');
const pcDir = pkgDir('@papercups-io/chat-widget');
if (!pcDir) console.log('  not installed: npm install --prefix bench');
else {
  const version = JSON.parse(readFileSync(path.join(pcDir, 'package.json'), 'utf8')).version;
  const esbuild = createRequire(path.join(root, 'widget/package.json'))('esbuild');
  const entry = `import React from 'react'; import ReactDOM from 'react-dom';
import { ChatWidget } from '@papercups-io/chat-widget';
const el = document.createElement('div'); document.body.appendChild(el);
ReactDOM.render(React.createElement(ChatWidget, { accountId: 'bench', title: 'Welcome' }), el);`;
  const bundle = async (external) => {
    const out = await esbuild.build({
      stdin: { contents: entry, resolveDir: bench, loader: 'js' },
      bundle: true,
      minify: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2018',
      external,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    return out.outputFiles[0].contents;
  };
  const withReact = { name: 'bundle: chat-widget + deps + react + react-dom', bytes: Buffer.from(await bundle([])) };
  const noReact = { name: 'bundle: chat-widget + deps (react external)', bytes: Buffer.from(await bundle(['react', 'react-dom'])) };
  row(`  component + deps, site already has React v${version}`, [noReact]);
  row('  component + deps + React 16 (a site without React)', [withReact]);
  console.log('  files counted (built in this run from bench/node_modules):');
  listFiles([noReact, withReact]);
  console.log('  not counted: the iframe app from https://chat-widget.papercups.io (not published on npm)');
}
