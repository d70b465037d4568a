import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkUrl, isAllowedAddress, OutboundError, outboundRequest } from './outbound.js';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };

describe('isAllowedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['::1', 'IPv6 loopback'],
    ['fd00::1', 'unique-local'],
    ['fc12:3456::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback in hex, bracketed'],
  ])('refuses %s (%s) unless the operator allows private addresses', (address) => {
    expect(isAllowedAddress(address, closed)).toBe(false);
    expect(isAllowedAddress(address, open)).toBe(true);
  });

  it.each([
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['fe80::1', 'IPv6 link-local'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'IPv6 multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'IPv6 unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['not an address', 'garbage'],
  ])('refuses %s (%s) even when private addresses are allowed', (address) => {
    expect(isAllowedAddress(address, closed)).toBe(false);
    expect(isAllowedAddress(address, open)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::6810:85e5', '::ffff:8.8.8.8'])('lets public %s through', (address) => {
    expect(isAllowedAddress(address, closed)).toBe(true);
  });
});

describe('checkUrl', () => {
  it('refuses other schemes, credentials and private literal hosts in every spelling', () => {
    expect(checkUrl('ftp://example.com/', closed)).toEqual({ refused: 'The URL must start with http:// or https://.' });
    expect(checkUrl('file:///etc/passwd', closed)).toHaveProperty('refused');
    expect(checkUrl('https://user:pw@example.com/', closed)).toEqual({ refused: 'The URL must not contain a user name or password.' });
    expect(checkUrl('nonsense', closed)).toEqual({ refused: 'The URL is not valid.' });
    for (const u of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://localhost/', 'http://a.localhost/']) {
      expect(checkUrl(u, closed), u).toEqual({ refused: 'The URL points to a private or reserved address.' });
    }
    expect(checkUrl('http://127.0.0.1:8080/x', open)).toBeInstanceOf(URL);
    expect(checkUrl('http://example.com/', closed, ['https:'])).toEqual({ refused: 'The URL must start with https://.' });
    expect(checkUrl('https://example.com/hook', closed)).toBeInstanceOf(URL);
  });
});

describe('outboundRequest against a local server', () => {
  let server: http.Server;
  let base: string;
  let port: number;
  let hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/ok') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${req.method} ${body}`));
      } else if (req.url === '/big') {
        res.writeHead(200).end(Buffer.alloc(5000, 97));
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end('late'), 2000);
      } else if (req.url === '/to-ok') {
        res.writeHead(302, { location: '/ok' }).end();
      } else if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  afterEach(() => {
    hits = [];
    vi.restoreAllMocks();
  });

  it('refuses loopback by default before any connection, and reaches it when the operator allows', async () => {
    await expect(outboundRequest(`${base}/ok`, closed)).rejects.toMatchObject({ kind: 'refused' });
    expect(hits).toEqual([]);
    const res = await outboundRequest(`${base}/ok`, open, { method: 'POST', body: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('got POST hello');
  });

  it('refuses a name that resolves to loopback (localhost) unless allowed', async () => {
    await expect(outboundRequest(`http://localhost:${port}/ok`, closed)).rejects.toBeInstanceOf(OutboundError);
    expect(hits).toEqual([]);
  });

  it('connects to the address it checked: a name answering public then private (rebinding) never reaches the private one', async () => {
    // The guard resolves once per connection; whatever a later resolution would say, only an
    // allowed address is connected to. A name resolving to loopback only is refused outright.
    const real = dns.lookup;
    const spy = vi.spyOn(dns, 'lookup').mockImplementation(((host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if (host === 'rebind.test') return cb(null, [{ address: '127.0.0.1', family: 4 }]);
      return (real as unknown as (...a: unknown[]) => void)(host, opts, cb);
    }) as unknown as typeof dns.lookup);
    await expect(outboundRequest(`http://rebind.test:${port}/ok`, closed)).rejects.toMatchObject({ kind: 'refused' });
    expect(hits).toEqual([]);
    // Mixed answer: the refused address (link-local, refused even when private is open) is
    // dropped, the socket goes to the one that passed, and the name is resolved exactly once.
    spy.mockClear();
    spy.mockImplementation(((_h: string, _o: unknown, cb: (...a: unknown[]) => void) =>
      cb(null, [
        { address: '169.254.169.254', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ])) as unknown as typeof dns.lookup);
    const res = await outboundRequest(`http://mixed.test:${port}/ok`, open, { timeoutMs: 3000 });
    expect(res.status).toBe(200);
    expect(hits).toEqual(['/ok']);
    expect(spy.mock.calls.filter((c) => c[0] === 'mixed.test')).toHaveLength(1);
  });

  it('does not follow redirects unless asked, and re-checks every hop', async () => {
    const direct = await outboundRequest(`${base}/to-ok`, open);
    expect(direct.status).toBe(302);
    const followed = await outboundRequest(`${base}/to-ok`, open, { maxRedirects: 2 });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/ok`);
    await expect(outboundRequest(`${base}/to-metadata`, open, { maxRedirects: 2 })).rejects.toMatchObject({
      kind: 'refused',
      message: 'Redirect refused: The URL points to a private or reserved address.',
    });
  });

  it('caps the body (fails, or truncates when asked) and enforces the deadline', async () => {
    await expect(outboundRequest(`${base}/big`, open, { maxBytes: 1000 })).rejects.toMatchObject({ kind: 'too_large' });
    const cut = await outboundRequest(`${base}/big`, open, { maxBytes: 1000, truncate: true });
    expect(cut.body.length).toBe(1000);
    const started = Date.now();
    await expect(outboundRequest(`${base}/slow`, open, { timeoutMs: 200 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
