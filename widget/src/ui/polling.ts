/**
 * Engine.IO's HTTP long-polling transport for MiniSocket (socket.ts), in a chunk of its own
 * (dist/chunks/polling-<hash>.js): fetched only when a WebSocket cannot be used (a proxy or an
 * antivirus blocking the upgrade, a browser without WebSocket), so the first download skips it.
 */
import type { Pipe } from './socket.js';

/** Engine.IO v4 separates the packets of one polling payload with the record separator. */
const SEPARATOR = '\x1e';

/**
 * Engine.IO long-polling. The server refuses overlapping GETs or POSTs ("overlap from client"),
 * so one GET is held at a time and frames written meanwhile wait for the POST in flight.
 */
export function pollingPipe(url: string, onFrame: (f: string) => void, onEnd: () => void): Pipe {
  const base = `${url}/socket.io/?EIO=4&transport=polling`;
  let sid = '';
  let over = false;
  let queue: string[] = [];
  let posting = false;
  const abort = new AbortController();
  const end = (): void => {
    if (over) return;
    over = true;
    abort.abort();
    onEnd();
  };
  const get = (): void => {
    if (over) return;
    fetch(`${base}${sid && `&sid=${sid}`}&t=${Date.now().toString(36)}`, { signal: abort.signal, cache: 'no-store' })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((body) => {
        for (const frame of body.split(SEPARATOR)) {
          if (over) return;
          if (!sid && frame[0] === '0') sid = (JSON.parse(frame.slice(1)) as { sid: string }).sid;
          if (frame === '1' || frame === '6') return end(); // close; noop answers a GET on upgrade
          onFrame(frame);
        }
        get();
      })
      .catch(end);
  };
  const flush = (): void => {
    if (over || posting || !queue.length || !sid) return;
    posting = true;
    const body = queue.join(SEPARATOR);
    queue = [];
    fetch(`${base}&sid=${sid}`, { method: 'POST', body, signal: abort.signal })
      .then((r) => {
        if (!r.ok) throw new Error(String(r.status));
        posting = false;
        flush();
      })
      .catch(end);
  };
  get();
  return {
    send(frame) {
      queue.push(frame);
      flush();
    },
    close() {
      if (over) return;
      // Tell the server now (it would otherwise wait for the ping timeout), then stop.
      if (sid) fetch(`${base}&sid=${sid}`, { method: 'POST', body: '1', keepalive: true }).catch(() => {});
      end();
    },
  };
}

