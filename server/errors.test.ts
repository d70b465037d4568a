import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './test/harness.js';

/**
 * Errors raised before a route runs (the router, Node's HTTP parser) answer the envelope and
 * never echo the URL. Sent as raw HTTP: inject cannot send a malformed request.
 */
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

/** Sends `raw` and reads until the server closes or a full response with its body has arrived. */
function rawHttp(raw: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(raw));
    let data = '';
    const finish = () => {
      socket.destroy();
      const [head = '', ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: rest.join('\r\n\r\n') });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const length = /content-length: (\d+)/i.exec(data)?.[1];
      const bodyStart = data.indexOf('\r\n\r\n');
      if (length && bodyStart >= 0 && Buffer.byteLength(data.slice(bodyStart + 4)) >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error('no answer')));
  });
}

const marker = 'ECHOMARKER';

describe('framework errors answer the envelope without echoing the URL', () => {
  it('a path parameter past the router limit: 414', async () => {
    const res = await rawHttp(`GET /api/verify-payment/${marker}${'a'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(414);
    expect(JSON.parse(res.body)).toEqual({ message: 'The address is too long', error: 'The address is too long' });
    expect(res.body).not.toContain(marker);
  });

  it('a URL the router cannot decode: 400', async () => {
    const res = await rawHttp(`GET /api/verify-payment/${marker}%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ message: 'The address is not valid', error: 'The address is not valid' });
    expect(res.body).not.toContain(marker);
  });

  it.each([
    ['not a number', 'Content-Length: abc\r\n'],
    ['two different lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n'],
    ['a length beside chunked encoding', 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n'],
  ])('a wrong Content-Length (%s): 400', async (_name, header) => {
    const res = await rawHttp(`POST /api/vms/login?${marker} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${header}\r\n{}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ message: 'The request is malformed', error: 'The request is malformed' });
    expect(res.body).not.toContain(marker);
  });

  it('a body shorter than its Content-Length: 400 in the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/vms/login?${marker}`,
      headers: { 'content-type': 'application/json', 'content-length': '50' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: 'Invalid content length', error: 'Invalid content length' });
  });
});

describe('errorCodeOf (issue 13)', () => {
  it('codes rate limits, server faults and the known refusals; nothing else', async () => {
    const { errorCodeOf } = await import('./errors.js');
    expect(errorCodeOf(429, 'Too many uploads. Please try again later.')).toBe('rate_limited');
    expect(errorCodeOf(503, 'The service is temporarily unavailable. Please try again in a moment.')).toBe('unavailable');
    expect(errorCodeOf(500, 'Something went wrong. Please try again.')).toBe('server_error');
    expect(errorCodeOf(403, 'This account has reached its monthly chat limit')).toBe('chat_limit');
    expect(errorCodeOf(413, 'File size should be less than 5MB')).toBe('file_too_large');
    expect(errorCodeOf(404, 'Visitor not found')).toBeUndefined();
    expect(errorCodeOf(422, 'Name must be at most 255 characters')).toBeUndefined();
  });
});
