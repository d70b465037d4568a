import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 for fault tests. `blackhole()` stops forwarding without closing
 * anything (a failover: sockets stay open and never answer again, even after `restore()`);
 * `cut()` resets every connection and refuses new ones until `restore()`.
 */
export interface TcpProxy {
  port: number;
  blackhole(): void;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'forward' | 'blackhole' | 'cut' = 'forward';
  const live = new Set<net.Socket>();
  const dead = new WeakSet<net.Socket>(); // black-holed for good
  const track = (s: net.Socket) => {
    live.add(s);
    s.on('close', () => live.delete(s));
    s.on('error', () => {});
  };
  const server = net.createServer((inbound) => {
    track(inbound);
    if (mode === 'cut') return inbound.resetAndDestroy();
    if (mode === 'blackhole') {
      dead.add(inbound);
      inbound.on('data', () => {});
      return;
    }
    const outbound = net.connect(target.port, target.host);
    track(outbound);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        if (!dead.has(from) && !dead.has(to) && !to.destroyed) to.write(chunk);
      });
    forward(inbound, outbound);
    forward(outbound, inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    blackhole() {
      mode = 'blackhole';
      for (const s of live) dead.add(s);
    },
    cut() {
      mode = 'cut';
      for (const s of live) s.resetAndDestroy();
    },
    restore() {
      mode = 'forward';
    },
    async close() {
      for (const s of live) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
