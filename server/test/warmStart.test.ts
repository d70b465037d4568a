import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type NodeProcess, startNodeProcess } from './topologyProcess.js';
import { removeTempDir } from './tempDir.js';

/**
 * A node just (re)started must not stall its first upload's or first email's neighbours while it
 * compiles a large module (file-type 100-350 ms, nodemailer 100-250 ms on this machine): the
 * server's entry point loads them before it listens. Observed from outside: a module hook in the
 * node's process reports which of them were resolved when the server called listen().
 */

const WATCHED = ['file-type', 'nodemailer'];
let dir: string | undefined;
let node: NodeProcess | undefined;

afterAll(async () => {
  await node?.kill();
  if (dir) await removeTempDir(dir);
});

describe('a node started with npm start', () => {
  it('has loaded what an upload and an email need before it listens', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-warm-'));
    const pattern = `/node_modules/(${WATCHED.join('|')})/`;
    await fs.writeFile(
      path.join(dir, 'hooks.mjs'),
      `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const m = new RegExp(${JSON.stringify(pattern)}).exec(resolved.url);
  if (m) port.postMessage(m[1]);
  return resolved;
}
`,
    );
    await fs.writeFile(
      path.join(dir, 'preload.mjs'),
      `import { register } from 'node:module';
import net from 'node:net';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
port1.on('message', (name) => seen.add(name));
port1.unref();
register(new URL('./hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  process.stdout.write('loaded when listening: [' + [...seen].sort().join(',') + ']\\n');
  return listen.apply(this, args);
};
`,
    );
    node = await startNodeProcess({ NODE_OPTIONS: `--import=${path.join(dir, 'preload.mjs')}` });
    const lines = node.output().match(/loaded when listening: \[[^\]]*\]/g) ?? [];
    expect(lines.length).toBeGreaterThan(0);
    // The server's own listen (the last one: nothing else in the process listens after it).
    expect(lines.at(-1)).toBe(`loaded when listening: [${[...WATCHED].sort().join(',')}]`);
  }, 120_000);
});
