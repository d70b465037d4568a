import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HandshakeGate } from './auth.js';

/** A handshake request on `connection` (a kept-alive one carries many). */
const handshakeOn = (connection: EventEmitter) => ({ socket: connection }) as unknown as IncomingMessage;

describe('HandshakeGate: handshakes of one address upgraded and not yet answered', () => {
  it('holds a place per pending handshake of an address; an answer or the connection closing frees it', () => {
    const gate = new HandshakeGate(2);
    const a = new EventEmitter();
    const b = new EventEmitter();
    expect(gate.admit(handshakeOn(a), '203.0.113.5')).toBe(true);
    const second = handshakeOn(b);
    expect(gate.admit(second, '203.0.113.5')).toBe(true);
    expect(gate.admit(handshakeOn(new EventEmitter()), '203.0.113.5')).toBe(false);
    expect(gate.admit(handshakeOn(new EventEmitter()), '203.0.113.6')).toBe(true); // another address
    a.emit('close');
    expect(gate.admit(handshakeOn(new EventEmitter()), '203.0.113.5')).toBe(true);
    gate.answered(second);
    gate.answered(second); // once only: one place freed
    expect(gate.admit(handshakeOn(new EventEmitter()), '203.0.113.5')).toBe(true);
    expect(gate.admit(handshakeOn(new EventEmitter()), '203.0.113.5')).toBe(false);
  });

  it('leaves no listener on a kept-alive connection that carries many answered handshakes', () => {
    const gate = new HandshakeGate(2);
    const proxy = new EventEmitter();
    for (let i = 0; i < 50; i++) {
      const req = handshakeOn(proxy);
      expect(gate.admit(req, '198.51.100.7')).toBe(true);
      gate.answered(req);
    }
    expect(proxy.listenerCount('close')).toBe(0);
  });
});
