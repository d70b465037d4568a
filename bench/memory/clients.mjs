// The idle widget connections, in their own process so they are not in the server's memory.
// IPC: { cmd: 'connect', url, auths: [...], localAddresses?: ['127.0.0.2', ...] } -> { connected, failed, firstError }
// (localAddresses: source addresses taken in turn, so many connections do not run out of one
// address's ephemeral ports);
// { cmd: 'close' } -> { closed }.
import { readFileSync } from 'node:fs';
import { io } from 'socket.io-client';

const sockets = [];
const CONCURRENCY = 100;

async function connectAll(url, auths, localAddresses = []) {
  let next = 0;
  let failed = 0;
  let firstError;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < auths.length) {
        const i = next++;
        const auth = auths[i];
        const localAddress = localAddresses.length ? localAddresses[i % localAddresses.length] : undefined;
        await new Promise((resolve) => {
          const s = io(url, { auth, transports: ['websocket'], reconnection: false, forceNew: true, ...(localAddress ? { localAddress } : {}) });
          s.once('connect', () => (sockets.push(s), resolve()));
          s.once('connect_error', (e) => {
            failed++;
            firstError ??= e.message;
            s.close();
            resolve();
          });
        });
      }
    }),
  );
  return { connected: sockets.length, failed, firstError };
}

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') process.send(await connectAll(msg.url, msg.auths, msg.localAddresses));
  if (msg.cmd === 'close') {
    for (const s of sockets.splice(0)) s.close();
    process.send({ closed: true });
  }
});
process.send({ ready: true, fdLimit: fdLimit() });

/** This process's open-file limit (soft), from /proc. */
function fdLimit() {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3]);
}
