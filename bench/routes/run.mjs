// Console route weight: for each route of client/src/router.tsx, the gzip size of the
// JavaScript its first load downloads: the entry chunk, the lazy layout chunk (signed-in
// routes), the route's lazy screen chunk, and all their static imports (not dynamic ones:
// those load later, e.g. charts). Each file gzip -9 on its own, as a server sends it.
// Run: node bench/routes/run.mjs            reads client/dist (after `cd client && npx vite build`)
//      node bench/routes/run.mjs --build    builds the console first into a temporary directory
//                                           (vite build --manifest), leaving client/dist alone
//      node bench/routes/run.mjs --dist DIR  reads another build output
// Reads the Vite manifest (dist/.vite/manifest.json) when there is one; otherwise parses the
// built index.html and the chunks' static imports, and finds each screen's chunk by its
// source map (or its file name).
// Targets: /login and /register <= 120 KB gzip; no route > 350 KB gzip; echarts never on routes without charts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../lib.mjs';

const client = path.join(ROOT, 'client');
const srcDir = path.join(client, 'src');
const distArg = process.argv.indexOf('--dist');
let dist = distArg > 0 ? path.resolve(process.argv[distArg + 1]) : path.join(client, 'dist');
let tmp;
if (process.argv.includes('--build')) {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'parley-console-'));
  dist = tmp;
  console.log('building the console (vite build --manifest) into a temporary directory...');
  execFileSync('npx', ['vite', 'build', '--manifest', '--outDir', tmp, '--emptyOutDir', '--logLevel', 'error'], { cwd: client, stdio: 'inherit' });
}
try {
  main();
} finally {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

function main() {
  if (!existsSync(path.join(dist, 'index.html'))) {
    console.error(`${dist}/index.html is missing: run \`cd client && npx vite build\` first, or pass --build`);
    process.exit(1);
  }
  const gz = new Map();
  const gzipOf = (file) => {
    if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length);
    return gz.get(file);
  };
  const jsFiles = readdirSync(path.join(dist, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `assets/${f}`);

  // ---- the chunk graph: static imports of each chunk, and where each source module went ----
  const manifestPath = path.join(dist, '.vite/manifest.json');
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : undefined;
  const staticImports = new Map(); // chunk file -> chunk files
  let entry;
  let chunkOfModule; // src-relative module path (e.g. src/screens/Login.tsx) -> chunk file
  if (manifest) {
    const byKey = (k) => manifest[k]?.file;
    for (const item of Object.values(manifest)) {
      if (item.file.endsWith('.js')) staticImports.set(item.file, (item.imports ?? []).map(byKey).filter(Boolean));
    }
    entry = Object.values(manifest).find((i) => i.isEntry)?.file;
  } else {
    const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
    entry = html.match(/<script[^>]+type="module"[^>]+src="\/?([^"]+)"/)?.[1];
    // import{a}from"./x.js" | import"./x.js" | import*as x from"./x.js" | export{a}from"./x.js" (not import("./x.js"))
    const re = /(?:\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?|\bexport\s*[*{][^;]*?from\s*)["']\.\/([^"']+\.js)["']/g;
    for (const f of jsFiles) {
      const code = readFileSync(path.join(dist, f), 'utf8');
      staticImports.set(f, [...new Set([...code.matchAll(re)].map((m) => `assets/${m[1]}`))]);
    }
  }
  // A screen also imported statically elsewhere lands in a shared chunk that the manifest does
  // not key by its source: then its source map (or its file name) says where it went.
  const sources = new Map(jsFiles.map((f) => [f, mapSources(f)]));
  chunkOfModule = (mod) => {
    if (manifest?.[mod]) return manifest[mod].file;
    for (const [f, srcs] of sources) if (srcs.some((s) => s.endsWith(`../${mod}`))) return f;
    const base = path.basename(mod).replace(/\.[tj]sx?$/, '');
    return jsFiles.find((f) => new RegExp(`^assets/${base}-[\\w-]{8}\\.js$`).test(f));
  };
  if (!entry) throw new Error('could not find the entry chunk');
  const closure = (roots) => {
    const seen = new Set();
    const walk = (f) => {
      if (!f || seen.has(f)) return;
      seen.add(f);
      for (const d of staticImports.get(f) ?? []) walk(d);
    };
    for (const r of roots) walk(r);
    return seen;
  };

  // ---- echarts: chunks whose source map lists echarts / zrender / echarts-for-react modules ----
  function mapSources(f) {
    const map = path.join(dist, `${f}.map`);
    if (!existsSync(map)) return [];
    return JSON.parse(readFileSync(map, 'utf8')).sources ?? [];
  }
  const echartsChunks = new Set(
    jsFiles.filter((f) => {
      const srcs = mapSources(f);
      if (srcs.length) return srcs.some((s) => /node_modules\/(echarts|zrender|echarts-for-react)\//.test(s));
      return readFileSync(path.join(dist, f), 'utf8').includes('_echarts_instance_');
    }),
  );

  // ---- routes, from router.tsx: helper(path, () => import('...')) and the layout they sit in ----
  const routerSrc = readFileSync(path.join(srcDir, 'router.tsx'), 'utf8');
  const resolveSrc = (spec) => {
    const abs = path.resolve(srcDir, spec);
    for (const ext of ['.tsx', '.ts', '/index.tsx', '/index.ts', '']) if (existsSync(abs + ext)) return path.relative(client, abs + ext);
    throw new Error(`cannot resolve ${spec} from router.tsx`);
  };
  // const appLayout = createRoute({ ... component: screen(() => import('./components/layout/AppLayout')) })
  const layouts = new Map();
  for (const m of routerSrc.matchAll(/const\s+(\w+)\s*=\s*createRoute\(\{[^}]*?import\(\s*['"]([^'"]+)['"]\s*\)/gs)) layouts.set(m[1], resolveSrc(m[2]));
  // const appRoute = <P ...>(path: P, load ...) => createRoute({ getParentRoute: () => appLayout, ...
  const helperParent = new Map();
  for (const m of routerSrc.matchAll(/const\s+(\w+)\s*=\s*(?:<[^>]*>)?\s*\([^)]*\)\s*=>\s*createRoute\(\{\s*getParentRoute:\s*\(\)\s*=>\s*(\w+)/g)) helperParent.set(m[1], m[2]);
  const routes = [...routerSrc.matchAll(/(\w+)\(\s*['"](\/[^'"]*)['"]\s*,\s*\(\)\s*=>\s*import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({
    path: m[2],
    module: resolveSrc(m[3]),
    layout: layouts.get(helperParent.get(m[1])),
  }));
  if (routes.length === 0) throw new Error('no routes found in router.tsx');

  // Which screens draw charts: their source import graph (static or lazy) reaches echarts.
  const importsOf = (file) => {
    const code = readFileSync(path.join(client, file), 'utf8');
    return [...code.matchAll(/(?:from\s*|import\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
  };
  const drawsCharts = (file, seen = new Set()) => {
    if (seen.has(file)) return false;
    seen.add(file);
    for (const spec of importsOf(file)) {
      if (/^echarts(-for-react)?(\/|$)/.test(spec)) return true;
      if (spec.startsWith('.')) {
        let dep;
        try {
          dep = path.relative(client, path.resolve(path.dirname(path.join(client, file)), spec));
          dep = resolveSrc(path.relative(srcDir, path.join(client, dep)));
        } catch {
          continue; // css or asset
        }
        if (/\.[tj]sx?$/.test(dep) && drawsCharts(dep, seen)) return true;
      }
    }
    return false;
  };

  console.log(`Console route weight: JavaScript of each route's first load (gzip -9 per file), from ${manifest ? 'the Vite manifest' : 'index.html + static imports (no manifest)'}\n`);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const head = `${'route'.padEnd(18)}${'chunks'.padStart(7)}${'gzip'.padStart(11)}  echarts   verdict`;
  console.log(head);
  console.log('-'.repeat(head.length + 20));
  let problems = 0;
  for (const r of routes) {
    const screenChunk = chunkOfModule(r.module);
    const layoutChunk = r.layout ? chunkOfModule(r.layout) : undefined;
    if (!screenChunk || (r.layout && !layoutChunk)) {
      console.log(`${r.path.padEnd(18)} chunk not found for ${r.module}`);
      problems++;
      continue;
    }
    const files = closure([entry, layoutChunk, screenChunk].filter(Boolean));
    const total = [...files].reduce((s, f) => s + gzipOf(f), 0);
    const withEcharts = [...files].some((f) => echartsChunks.has(f));
    const charts = drawsCharts(r.module);
    const notes = [];
    const limit = r.path === '/login' || r.path === '/register' ? 120 : 350;
    notes.push(total <= limit * 1024 ? `<= ${limit} KB ok` : `> ${limit} KB OVER`);
    if (withEcharts && !charts) notes.push('echarts on a route without charts: FAIL');
    if (total > limit * 1024 || (withEcharts && !charts)) problems++;
    const ech = withEcharts ? 'in load' : charts ? 'lazy' : '-';
    console.log(`${r.path.padEnd(18)}${String(files.size).padStart(7)}${kb(total).padStart(11)}  ${ech.padEnd(8)}  ${notes.join('; ')}`);
  }
  console.log(`\nentry: ${entry} (${kb(gzipOf(entry))} gzip)`);
  console.log(`chunks containing echarts/zrender: ${[...echartsChunks].map((f) => `${path.basename(f)} (${kb(gzipOf(f))})`).join(', ') || 'none'}`);
  console.log(`echarts column: "in load" = part of the first load, "lazy" = a chart screen that loads it afterwards, "-" = never`);
  console.log(problems ? `\n${problems} route(s) miss a target` : '\nall routes within targets');
}
