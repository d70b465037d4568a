import type { FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import { EVENTS } from '@parley/shared';
import { useLivePresence } from '../services/presence.js';
import { SLOT_REFRESH_MS } from '../services/rateLimit.js';
import { HandshakeGate, authenticateSocket, handshakeRefusal, type SocketData, widgetSlot } from './auth.js';
import { rooms } from './audience.js';
import { onConsoleSocket } from './consoleSocket.js';
import { watchNodes } from './nodeWatch.js';
import { FANOUT_EVENT, type Fanout, deliverLocally } from './fanout.js';
import { quietPolls } from '../services/quietPolls.js';
import { liveNodes, subscribePush } from './push.js';
import { VisitorSockets, useVisitorSockets } from './visitorPresence.js';
import { onWidgetSocket } from './widgetSocket.js';

declare module 'fastify' {
  interface FastifyInstance {
    io: Server;
    /** True once the node is shutting down: disconnect handlers then skip cluster-wide work. */
    realtimeClosing(): boolean;
  }
}

/** How long a lookup's answer stands in for one that timed out (live presence). */
const LAST_LIVE_MS = 60_000;

/** Largest frame a socket may send: a 5000-character message in 4-byte UTF-8 plus its envelope. */
const MAX_FRAME_BYTES = 32 * 1024;

/**
 * Socket.IO on the Fastify server. Console sockets authenticate with the bearer token, widget
 * sockets with the widget key and the visitor token, both in the handshake `auth`. With
 * REDIS_URL the Redis adapter carries events between nodes; otherwise the in-memory adapter.
 */
export async function registerRealtime(app: FastifyInstance): Promise<void> {
  // Handshakes already known to be refused are refused before the WebSocket upgrade (realtime/auth.ts).
  const handshakes = new HandshakeGate(app.config.widgetLimits.handshakesPerIp);
  const io = new Server<Record<string, never>, Record<string, never>, { [FANOUT_EVENT]: (change: Fanout) => void }, SocketData>(app.server, {
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_FRAME_BYTES,
    // Widget sockets come from any site; console sockets' Origin is checked in authenticateSocket.
    cors: { origin: true, methods: ['GET', 'POST'] },
    allowRequest: (req, fn) => {
      const refusal = handshakeRefusal(app, handshakes, req);
      if (refusal === undefined) return fn(null, true);
      // Answered a while later: a flooding client's next try waits for it (plugins/refusalHolds.ts).
      app.refusalHolds.answerLater(req, refusal.ip, () => fn(refusal.message, false));
    },
  });

  let closing = false;
  let adapterReady = () => true;
  // This node's widget sockets by visitor, their audience, and the cluster's presence counter.
  const registry = new VisitorSockets(app.redis, app.config.rateLimits.prefix, () => liveNodes(app));
  useVisitorSockets(io, registry);
  // Polls answered from memory (services/quietPolls.ts) only where this node hears every push.
  quietPolls(io).hearsAll = Boolean(app.config.redisUrl) || app.database.kind === 'pglite';
  if (app.config.redisUrl) {
    // Loaded only with REDIS_URL: one node on the embedded default never pays for these imports.
    const [{ createAdapter }, { createClient }] = await Promise.all([import('@socket.io/redis-adapter'), import('redis')]);
    const pub = createClient({ url: app.config.redisUrl });
    adapterReady = () => pub.isReady;
    const sub = pub.duplicate();
    // Without listeners a Redis restart would crash the process; node-redis reconnects and resubscribes.
    // After the subscriber comes back (Redis restarted), events published meanwhile are lost to this
    // node: tell its local sockets to catch up from the database.
    let subscriberLost = false;
    pub.on('error', (err) => app.log.warn({ err }, 'socket.io redis publisher error'));
    // Meanwhile other nodes' pushes are lost to this node: no poll is answered from its memory.
    const polls = quietPolls(io);
    sub.on('error', (err) => {
      subscriberLost = true;
      polls.pause();
      app.log.warn({ err }, 'socket.io redis subscriber error');
    });
    sub.on('end', () => {
      subscriberLost = true;
      polls.pause();
    });
    sub.on('ready', () => {
      if (!subscriberLost) return;
      subscriberLost = false;
      // Fan-outs published meanwhile are lost too: audiences are read again, presence written again.
      registry.forgetConversations();
      void registry.rewrite();
      // Give the adapter a moment to resubscribe before clients refetch.
      setTimeout(() => {
        if (!subscriberLost) polls.resume();
        io.local.emit(EVENTS.syncRequired, {});
      }, 250).unref();
    });
    await Promise.all([pub.connect(), sub.connect()]);
    io.adapter(createAdapter(pub, sub, { key: 'parley:io', requestsTimeout: 3000 }));
    // Another node's fan-out (realtime/fanout.ts): delivered to this node's sockets.
    // (Heard from the adapter's subscription, possibly while this node still starts: the io at hand, never app.io.)
    io.on(FANOUT_EVENT, (change: Fanout) => {
      if (closing) return;
      try {
        deliverLocally(io as unknown as Server, change);
      } catch (err) {
        app.log.warn({ err }, 'fan-out from another node not delivered');
      }
    });
    // A node that died may have stored messages whose pushes never left it (relayed from push_outbox).
    const nodes = await watchNodes({
      pub,
      sub,
      // Its stored-but-unpushed messages are pushed from push_outbox by any live node within a
      // second (outbox/pushRelay.ts): no client is asked to reload.
      onNodeLost: (nodeId) => app.log.warn({ nodeId }, 'a node stopped without closing; its owed pushes are relayed from push_outbox'),
      onError: (err) => app.log.warn({ err }, 'node heartbeat failed'),
    });
    // After preClose (which marks the node closing): say goodbye, then quit.
    app.addHook('onClose', async () => {
      await nodes.close();
      await Promise.allSettled([pub.quit(), sub.quit()]);
    });
  }

  app.decorate('io', io as unknown as Server);
  app.decorate('realtimeClosing', () => closing);
  /**
   * The last answer of each account's lookup: when another node does not answer in time (a node
   * saturated by traffic), the agents who were there a moment ago still count, rather than every
   * visitor message of that moment reading "nobody online" (offline replies, owner emails).
   */
  const lastLive = new Map<string, { at: number; ids: number[] }>();
  /** Live presence: the members with a console socket of the account connected, on any node. */
  const agentsOnline = async (accountId: string): Promise<number[]> => {
    // The Redis adapter leaks a rejection when asked while its client is down: don't ask then.
    if (closing || !adapterReady()) return [];
    try {
      const sockets = await io.in(rooms.console(accountId)).fetchSockets();
      const ids = [...new Set(sockets.map((s) => (s.data as Extract<SocketData, { kind: 'console' }>).actor.id))];
      if (lastLive.size >= 10_000) lastLive.clear();
      lastLive.set(accountId, { at: Date.now(), ids });
      return ids;
    } catch {
      // Another node did not answer in time: presence is best effort, from the last answer if recent.
      const last = lastLive.get(accountId);
      return last && Date.now() - last.at < LAST_LIVE_MS ? last.ids : [];
    }
  };
  useLivePresence(app.db, agentsOnline);

  io.use((socket, next) => {
    authenticateSocket(app, socket, handshakes)
      .finally(() => handshakes.answered(socket.request))
      .then(
        () => next(),
        (err: Error) => next(err),
      );
  });
  // Widget sockets hold a slot of their visitor's and IP's caps while they live (refreshed so
  // a dead node's slots expire), given back on disconnect (realtime/widgetSocket.ts).
  const caps = app.widgetLimits.sockets;
  const liveSlots = () => [...io.of('/').sockets.values()].filter((s) => s.data.kind === 'widget').map(widgetSlot);
  const refresh = setInterval(() => void caps.refresh(liveSlots()), SLOT_REFRESH_MS);
  refresh.unref();
  io.on('connection', (socket) => {
    if (socket.data.kind === 'console') return onConsoleSocket(app, socket);
    onWidgetSocket(app, socket);
  });
  subscribePush(app);

  // preClose, not onClose: the HTTP server only finishes closing once these upgraded connections end.
  app.addHook('preClose', async () => {
    closing = true;
    clearInterval(refresh);
    await registry.close();
    io.local.disconnectSockets(true); // local: with the Redis adapter the plain call would close every node's sockets
    await new Promise<void>((resolve) => {
      io.close(() => resolve());
    });
  });
}
