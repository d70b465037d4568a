// HTTP from a chosen 127.0.0.x source address, shared by the abuse benches (run.mjs, refusals.mjs).
import http from 'node:http';

/** Keep-alive connections per source address, as a real client (or flooder) keeps them. */
const agents = new Map();
const agentFor = (from) => {
  if (!agents.has(from)) agents.set(from, new http.Agent({ keepAlive: true, maxSockets: 32, localAddress: from }));
  return agents.get(from);
};

export function call(base, method, urlPath, { from = '127.0.0.1', token, json, form } = {}) {
  const url = new URL(urlPath, base);
  const body = json !== undefined ? Buffer.from(JSON.stringify(json)) : form?.payload;
  const headers = {
    ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(form ? form.headers : {}),
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: agentFor(from), timeout: 60_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, retryAfter: res.headers['retry-after'] });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: null }));
    req.end(body);
  });
}

/** Closes one address's kept-alive connections (an address the flood is done with: a flood of many addresses would otherwise keep one open each until the process runs out of descriptors). */
export function dropAgent(from) {
  agents.get(from)?.destroy();
  agents.delete(from);
}

/** Closes every kept-alive connection and forgets them (at the end of a run; the next one opens its own). */
export function closeAgents() {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}
