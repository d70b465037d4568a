// What each idle socket adds to the server's heap: two heap snapshots of the same server (bench/
// memory/server.mjs's { cmd: 'snapshot' }, e.g. `BENCH_HEAP_SNAPSHOTS=DIR node bench/capacity/sockets.mjs`)
// taken at N and at M sockets, compared by kind of object: count and self size per added socket.
// Strings are grouped by their shape (digits and hex runs as #) so duplicated ids show up.
// Run: node bench/memory/heapdiff.mjs A.heapsnapshot B.heapsnapshot SOCKETS_ADDED [--top=40] [--who=GROUP ...]
// --who=GROUP: which objects hold GROUP's objects in B (by holder group and edge name), per added socket.
import { readFileSync } from 'node:fs';

const [fileA, fileB, added] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const top = Number(flags.find((f) => f.startsWith('--top='))?.slice(6) ?? 40);
const who = flags.filter((f) => f.startsWith('--who=')).map((f) => f.slice(6));
if (!fileA || !fileB || !Number(added)) {
  console.error('usage: node bench/memory/heapdiff.mjs A.heapsnapshot B.heapsnapshot SOCKETS_ADDED [--top=40] [--who=GROUP]');
  process.exit(2);
}
const n = Number(added);

function load(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const types = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const at = (k) => nf.indexOf(k);
  const [T, N, S, E] = [at('type'), at('name'), at('self_size'), at('edge_count')];
  const [ET, EN, ETO] = [ef.indexOf('type'), ef.indexOf('name_or_index'), ef.indexOf('to_node')];
  const { nodes, edges, strings } = snap;
  const width = nf.length;
  const count = nodes.length / width;
  const group = new Array(count);
  for (let i = 0; i < count; i++) {
    const type = types[nodes[i * width + T]];
    const name = strings[nodes[i * width + N]];
    group[i] = groupOf(type, name);
  }
  // Closures (and their contexts' owners) named by where the function is written: file:line.
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * width + E];
  const efWidth = ef.length;
  const edgeTo = (i, wanted) => {
    for (let k = firstEdge[i]; k < firstEdge[i + 1]; k++) if (strings[edges[k * efWidth + EN]] === wanted && edgeTypes[edges[k * efWidth + ET]] !== 'element') return edges[k * efWidth + ETO] / width;
    return -1;
  };
  const scriptNames = new Map();
  const loc = snap.locations ?? [];
  const lf = meta.location_fields ?? ['object_index', 'script_id', 'line', 'column'];
  for (let j = 0; j < loc.length; j += lf.length) {
    const i = loc[j] / width;
    if (types[nodes[i * width + T]] !== 'closure') continue;
    const scriptId = loc[j + 1];
    if (!scriptNames.has(scriptId)) {
      const sfi = edgeTo(i, 'shared');
      const script = sfi >= 0 ? edgeTo(sfi, 'script') : -1;
      const nameNode = script >= 0 ? edgeTo(script, 'name') : -1;
      scriptNames.set(scriptId, nameNode >= 0 ? String(strings[nodes[nameNode * width + N]]).split('/').slice(-2).join('/') : `script ${scriptId}`);
    }
    group[i] = `${group[i]} @${scriptNames.get(scriptId)}:${loc[j + 2] + 1}`;
  }
  return { nodes, edges, strings, width, count, group, T, S, E, ET, EN, ETO, types, edgeTypes, efWidth: ef.length };
}

function groupOf(type, name) {
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
    return `${type} "${name.replace(/[0-9a-f]{6,}|\d+/gi, '#').slice(0, 48)}"`;
  }
  if (type === 'number' || type === 'heap number') return type;
  if (type === 'code') return `code ${name.startsWith('(') ? name.split(' ')[0] : ''}`.trim();
  return `${type} ${name.slice(0, 80)}`;
}

function totals(s) {
  const byGroup = new Map();
  for (let i = 0; i < s.count; i++) {
    const g = s.group[i];
    const t = byGroup.get(g) ?? byGroup.set(g, { count: 0, size: 0 }).get(g);
    t.count++;
    t.size += s.nodes[i * s.width + s.S];
  }
  return byGroup;
}

const a = load(fileA);
const ta = totals(a);
const b = load(fileB);
const tb = totals(b);
const rows = [];
for (const [g, t] of tb) {
  const o = ta.get(g) ?? { count: 0, size: 0 };
  rows.push({ g, count: (t.count - o.count) / n, size: (t.size - o.size) / n });
}
for (const [g, o] of ta) if (!tb.has(g)) rows.push({ g, count: -o.count / n, size: -o.size / n });
rows.sort((x, y) => y.size - x.size);
const sum = rows.reduce((s, r) => s + r.size, 0);
console.log(`per added socket (${n}): ${sum.toFixed(0)} bytes of self size in all; by group (objects, bytes):`);
for (const r of rows.slice(0, top)) console.log(`${r.count.toFixed(2).padStart(9)} ${r.size.toFixed(1).padStart(9)}  ${r.g}`);

for (const target of who) {
  const holders = new Map();
  for (let i = 0, e = 0; i < b.count; i++) {
    const edgesOf = b.nodes[i * b.width + b.E];
    for (let k = 0; k < edgesOf; k++, e += b.efWidth) {
      const to = b.edges[e + b.ETO] / b.width;
      if (b.group[to] !== target) continue;
      const type = b.edgeTypes[b.edges[e + b.ET]];
      const name = type === 'element' || type === 'hidden' ? '[]' : String(b.strings[b.edges[e + b.EN]]);
      const key = `${b.group[i]} -${type}:${name}->`;
      holders.set(key, (holders.get(key) ?? 0) + 1);
    }
  }
  console.log(`\nholders of "${target}" in B (edges per added socket):`);
  for (const [k, c] of [...holders].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${(c / n).toFixed(2).padStart(9)}  ${k}`);
}
