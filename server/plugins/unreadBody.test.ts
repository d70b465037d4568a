import net from 'node:net';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, type TestOwner } from '../test/factories.js';
import { multipart } from '../test/multipart.js';
import { liveTestApp } from '../test/sockets.js';

// One upload per visitor and hour: the second is refused after its form started being read.
const t = liveTestApp({ UPLOADS_PER_VISITOR_HOUR: '1' });
let owner: TestOwner;

beforeAll(async () => {
  owner = await buildAccount(t.app);
});

/**
 * Sends a call's head and only the first `sent` bytes of its body over a raw connection, then
 * reads what comes back: the answer, and whether the server closed the connection within
 * `waitMs` although the rest of the body was never sent.
 */
function partialCall(head: string, body: Buffer, sent: number, waitMs: number): Promise<{ answer: string; closed: boolean }> {
  const url = new URL(t.base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = '';
    let closed = false;
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ answer, closed });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed });
    }, waitMs);
    socket.write(head);
    socket.write(body.subarray(0, sent));
  });
}

describe('a call answered before its body was read', () => {
  it('closes its connection: a refused upload never leaves the sender blocked on a connection nobody reads', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const send = async (clientId: string, image: Buffer) => {
      const form = multipart({ client_id: clientId }, { image: { filename: 'a.png', contentType: 'image/png', data: image } });
      const head = [
        'POST /api/widget/messages HTTP/1.1',
        `Host: ${new URL(t.base).host}`,
        `Authorization: Bearer ${visitor.token}`,
        `Content-Type: ${form.headers['content-type']}`,
        `Content-Length: ${form.payload.length}`,
        '',
        '',
      ].join('\r\n');
      return { head, body: form.payload };
    };
    // A tiny PNG spends the visitor's one upload of the hour.
    const tiny = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');
    const first = await send('first', tiny);
    const ok = await partialCall(first.head, first.body, first.body.length, 1500);
    expect(ok.answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(ok.answer.toLowerCase()).not.toContain('connection: close');

    // The next one declares 2 MB and sends only its first 256 KB: it is refused (budget spent)
    // and the server closes the connection rather than wait for the rest for good.
    const big = await send('second', Buffer.alloc(2 * 1024 * 1024, 7));
    const refused = await partialCall(big.head, big.body, 256 * 1024, 5000);
    expect(refused.answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(refused.answer.toLowerCase()).toContain('connection: close');
    expect(refused.closed).toBe(true);
  });
});

describe('a call with a small body answered before the body was read', () => {
  it('keeps its connection for the next call (the body is read and dropped): a refused flood costs no connection per call', async () => {
    const url = new URL(t.base);
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = '';
    let closed = false;
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => (closed = true));
    const body = JSON.stringify({ message: 'hello' });
    // No visitor token: refused (401) by the route's first hook, before its body is read.
    socket.write(['POST /api/widget/messages HTTP/1.1', `Host: ${url.host}`, 'Content-Type: application/json', `Content-Length: ${body.length}`, '', ''].join('\r\n'));
    await vi.waitFor(() => expect(answer).toMatch(/^HTTP\/1\.1 401 [\s\S]*\r\n\r\n\{[\s\S]*\}$/));
    expect(answer.toLowerCase()).not.toContain('connection: close');
    socket.write(body);
    socket.write([`GET /api/widget-settings?unique_code=${owner.widgetKey} HTTP/1.1`, `Host: ${url.host}`, '', ''].join('\r\n'));
    await vi.waitFor(() => expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(2));
    expect(answer).toMatch(/HTTP\/1\.1 200 /);
    expect(closed).toBe(false);
    socket.destroy();
  });
});
