import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MiniSocket } from './socket.js';

/** A stand-in for the browser's WebSocket that plays a Socket.IO server refusing (or accepting) the handshake. */
class FakeServerSocket {
  static opened: FakeServerSocket[] = [];
  static answer: string = '40{"sid":"x"}';
  onmessage?: (e: { data: string }) => void;
  onclose?: () => void;
  onerror?: () => void;
  sent: string[] = [];
  constructor(readonly url: string) {
    FakeServerSocket.opened.push(this);
    setTimeout(() => this.onmessage?.({ data: '0{"sid":"e","pingInterval":25000,"pingTimeout":20000}' }), 0);
  }
  send(frame: string): void {
    this.sent.push(frame);
    if (frame.startsWith('40')) setTimeout(() => this.onmessage?.({ data: `4${FakeServerSocket.answer}` }), 0);
  }
  close(): void {
    setTimeout(() => this.onclose?.(), 0);
  }
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', FakeServerSocket);
  FakeServerSocket.opened = [];
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('MiniSocket', () => {
  it('connects and sends the auth in the handshake', async () => {
    FakeServerSocket.answer = '0{"sid":"x"}';
    const s = new MiniSocket('http://parley.test', () => ({ widget_key: 'k', visitor_token: 't' }));
    const connected = vi.fn();
    s.on('connect', connected);
    await vi.advanceTimersByTimeAsync(10);
    expect(connected).toHaveBeenCalledOnce();
    expect(FakeServerSocket.opened[0]?.sent[0]).toBe('40{"widget_key":"k","visitor_token":"t"}');
    s.close();
  });

  it('after a 429 refusal (too many sockets) reports it and waits the longest backoff before asking again', async () => {
    FakeServerSocket.answer = '4{"message":"Too many connections. This tab keeps up by polling.","data":{"status":429}}';
    const s = new MiniSocket('http://parley.test', () => ({}));
    const errors: { data?: { status?: number } }[] = [];
    s.on('connect_error', (e: { data?: { status?: number } }) => errors.push(e));
    await vi.advanceTimersByTimeAsync(10);
    expect(errors[0]?.data?.status).toBe(429);
    // A refused tab does not hammer the server: no new handshake within 14 s (jitter: 15-30 s).
    await vi.advanceTimersByTimeAsync(14_000);
    expect(FakeServerSocket.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(17_000);
    expect(FakeServerSocket.opened).toHaveLength(2);
    s.close();
  });

  it('retries an unreachable server quickly at first', async () => {
    FakeServerSocket.answer = '4{"message":"Something went wrong","data":{"status":500}}';
    const s = new MiniSocket('http://parley.test', () => ({}));
    await vi.advanceTimersByTimeAsync(1010);
    expect(FakeServerSocket.opened.length).toBe(2);
    s.close();
  });

  it("a draining server's reconnect hint replaces the first backoff wait", async () => {
    FakeServerSocket.answer = '0{"sid":"x"}';
    const s = new MiniSocket('http://parley.test', () => ({}));
    s.on('server.reconnect', (p: { in_ms: number }) => s.reconnectIn(p.in_ms));
    await vi.advanceTimersByTimeAsync(10);
    expect(s.connected).toBe(true);
    const server = FakeServerSocket.opened[0]!;
    server.onmessage?.({ data: '42["server.reconnect",{"in_ms":2500}]' });
    server.close();
    // Without the hint the first retry comes within 0.5-1 s; with it, after 2.5 s.
    await vi.advanceTimersByTimeAsync(2400);
    expect(FakeServerSocket.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(FakeServerSocket.opened).toHaveLength(2);
    s.close();
  });
});
