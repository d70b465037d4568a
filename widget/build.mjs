// Builds the widget:
// - dist/ui-<hash>.js: the chat UI + transport, an ES module the loader imports (cached a year);
// - dist/widget.js: the loader (served at /widget.js), with the UI's hashed file name baked in;
// - dist/lang/<code>-<hash>.js: one module per language (a visitor fetches only theirs);
// - dist/preview.js: renderPreview() for the console's onboarding preview (no network code).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { precompress } from './precompress.mjs';

const common = { bundle: true, minify: true, target: ['es2019'], legalComments: 'none', charset: 'utf8', write: false, logLevel: 'warning' };
// The UI, its lazily loaded features and the preview are modules the loader imports; their syntax
// targets browsers from 2020-21 on (optional chaining and class fields as written, not lowered
// into helper calls: 0.6 KB brotli less). The loader stays es2019: it runs on every host page and
// must never be a syntax error there (an older browser gets the launcher and an 'error' report).
const modern = { ...common, target: ['chrome91', 'edge91', 'firefox78', 'safari14'] };
mkdirSync('dist', { recursive: true });
for (const f of readdirSync('dist')) if (/^(ui-.*|widget|preview)\.js(\.map)?$/.test(f)) rmSync(`dist/${f}`);
rmSync('dist/lang', { recursive: true, force: true });
mkdirSync('dist/lang');

// The language table, evaluated once here and written as one tiny module per language.
const evaluate = async (entry) => {
  const out = await build({ ...common, minify: false, entryPoints: [entry], format: 'esm', outfile: 'out.js' });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].contents).toString('base64')}`);
};
const { TABLE } = await evaluate('src/ui/texts.ts');
// The refusal texts (issue 13): dist/lang/<code>.err-<hash>.js, fetched only when an error is first shown.
const { ERROR_TABLE } = await evaluate('src/ui/errorTexts.ts');
// The assistant's words (issue 17): dist/lang/<code>.ai-<hash>.js, fetched with the first answer.
const { AI_TABLE } = await evaluate('src/ui/aiTexts.ts');
const langHash = createHash('sha256').update(JSON.stringify([TABLE, ERROR_TABLE, AI_TABLE])).digest('hex').slice(0, 10);
const langSizes = [];
for (const [code, line] of Object.entries(TABLE)) {
  const body = Buffer.from(`export default ${JSON.stringify(line)};`);
  writeFileSync(`dist/lang/${code}-${langHash}.js`, body);
  langSizes.push([code, body.length, gzipSync(body, { level: 9 }).length, brotliCompressSync(body).length]);
}
for (const [code, line] of Object.entries(ERROR_TABLE)) writeFileSync(`dist/lang/${code}.err-${langHash}.js`, `export default ${JSON.stringify(line)};`);
for (const [code, line] of Object.entries(AI_TABLE)) writeFileSync(`dist/lang/${code}.ai-${langHash}.js`, `export default ${JSON.stringify(line)};`);

const sizes = [];
function emit(name, out) {
  const js = out.outputFiles.find((f) => f.path.endsWith('.js'));
  writeFileSync(`dist/${name}`, js.contents);
  sizes.push([name, js.contents.length, gzipSync(js.contents, { level: 9 }).length, brotliCompressSync(js.contents).length]);
  return js.contents;
}

// Features loaded only when needed (issue 13: rating, transcript, proactive): each its own
// self-contained module dist/chunks/<name>-<hash>.js, imported by URL (ui/lazy.ts), so the UI
// chunk neither carries them nor waits for a shared chunk.
rmSync('dist/chunks', { recursive: true, force: true });
mkdirSync('dist/chunks');
const lazy = {};
const lazySizes = [];
/** Every source file a bundle other than the UI chunk is built from (the check below). */
const elsewhere = new Set();
const inputsOf = (out) => Object.keys(out.metafile.inputs).forEach((f) => elsewhere.add(f));
for (const name of ['rating', 'transcript', 'proactive', 'aiAnswer', 'refusals', 'polling']) {
  const out = await build({ ...modern, metafile: true, entryPoints: [`src/ui/${name}.ts`], format: 'esm', outfile: `dist/chunks/${name}.js`, define: { __LANG_HASH__: JSON.stringify(langHash) } });
  inputsOf(out);
  const code = out.outputFiles.find((f) => f.path.endsWith('.js')).contents;
  const file = `chunks/${name}-${createHash('sha256').update(code).digest('hex').slice(0, 10)}.js`;
  writeFileSync(`dist/${file}`, code);
  lazy[name] = file;
  lazySizes.push([file, code.length, gzipSync(code, { level: 9 }).length, brotliCompressSync(code).length]);
}

// Members of the UI chunk's own classes (Chat, View, MiniSocket) named only inside it get short
// names (about 0.25 KB brotli). Only these names, never one an object crossing into another bundle
// (the loader's context, a lazy feature's options, its module's exports) or the server's JSON may
// carry: the build fails below if any of them appears in a source of the loader or a lazy chunk.
const INTERNAL = ('historyLoaded syncing syncingFull fullAfter typingOff agentTyping settingsAt aiLoading startPolling stopPolling ' +
  'markSeen sendText enqueue stopTyping showMenu watchPage typingLine headerExtra offlineForm setMessages setOffline ' +
  'setTyping setUnread unreadCount showError setSlot setHandedOver offlineSent applySettings scrollDown fellBack nextAck pingTimer ' +
  'retryTimer hintMs reconnectIn').split(' ');
const ui = await build({ ...modern, mangleProps: new RegExp(`^(${INTERNAL.join('|')})$`), entryPoints: ['src/ui/chat.ts'], format: 'esm', outfile: 'dist/ui.js', define: { __LANG_HASH__: JSON.stringify(langHash), __LAZY__: JSON.stringify(lazy) } });
const uiCode = ui.outputFiles.find((f) => f.path.endsWith('.js')).contents;
const uiFile = `ui-${createHash('sha256').update(uiCode).digest('hex').slice(0, 10)}.js`;
emit(uiFile, ui);

const loaderOut = await build({ ...common, metafile: true, entryPoints: ['src/loader.ts'], format: 'iife', outfile: 'dist/widget.js', define: { __UI_FILE__: JSON.stringify(uiFile), __LANG_HASH__: JSON.stringify(langHash) } });
inputsOf(loaderOut);
emit('widget.js', loaderOut);
for (const file of elsewhere) {
  const text = readFileSync(file, 'utf8');
  const shared = INTERNAL.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
  if (shared.length) throw new Error(`${file} names ${shared.join(', ')}: mangled in the UI chunk only (build.mjs INTERNAL), it would not match there`);
}
emit('preview.js', await build({ ...modern, entryPoints: ['src/ui/render.ts'], format: 'esm', outfile: 'dist/preview.js' }));

const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
console.log('widget built:');
for (const [name, raw, gz, br] of sizes) console.log(`  dist/${name.padEnd(20)} raw ${kb(raw).padStart(9)}  gzip ${kb(gz).padStart(8)}  brotli ${kb(br).padStart(8)}`);
const chat = sizes.filter(([n]) => n !== 'preview.js').reduce((a, [, , gz]) => a + gz, 0);
const largest = langSizes.reduce((a, b) => (b[2] > a[2] ? b : a));
for (const [name, raw, gz, br] of lazySizes) console.log(`  dist/${name.padEnd(20)} raw ${kb(raw).padStart(9)}  gzip ${kb(gz).padStart(8)}  brotli ${kb(br).padStart(8)}  (loaded when needed)`);
console.log(`  dist/lang/*.js            ${langSizes.length} languages; largest ${largest[0]}: raw ${kb(largest[1])}  gzip ${kb(largest[2])}  brotli ${kb(largest[3])}`);
console.log(`  loader + UI + transport (gzip): ${kb(chat)}; + largest language ${kb(chat + largest[2])} (budget 25 KB; loader budget 2 KB)`);
console.log(`  precompressed: ${precompress('dist').length} .br/.gz files beside the built files`);
