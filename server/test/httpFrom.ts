import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A real HTTP call (not app.inject) from a chosen local source address, as visitors come from
 * distinct IPs: for what sits on the HTTP server itself and for per-IP limits.
 */
export function callFrom(
  base: string,
  from: string,
  method: string,
  path: string,
  opts: { token?: string | undefined; body?: unknown; origin?: string | undefined; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const url = new URL(path, base);
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        agent: false,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.origin ? { origin: opts.origin } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
