import type { FastifyInstance } from 'fastify';
import type { Server } from 'socket.io';
import { quietPolls } from '../services/quietPolls.js';
import { rooms } from './audience.js';
import { type VisitorConversation, visitorSockets } from './visitorPresence.js';

/** The server-side event that carries a fan-out between nodes (never seen by clients). */
export const FANOUT_EVENT = 'parley.fanout';

/** One event to some rooms. */
export interface Delivery {
  rooms: string[];
  /** Sockets (by id) of those rooms left out: the sender of a message, whose ack carried it. */
  except?: string[];
  event: string;
  payload: unknown;
}

/** Everything one change tells (its deliveries, in order), and its visitors' conversations as they are now. */
export interface Fanout {
  deliveries: Delivery[];
  visitors?: { id: string; conversation: VisitorConversation }[];
}

const VISITOR_ROOM = rooms.visitor('');

/**
 * Delivers to this node's sockets only, and keeps the node's visitor audience current. A delivery
 * to a visitor's room also tells the node's remembered polls that this visitor has news
 * (services/quietPolls.ts): every node hears every fan-out, sockets or not.
 */
export function deliverLocally(io: Pick<Server, 'local' | 'in' | 'sockets'>, fanout: Fanout): void {
  const polls = quietPolls(io);
  for (const d of fanout.deliveries) for (const room of d.rooms) if (room.startsWith(VISITOR_ROOM)) polls.changed(room.slice(VISITOR_ROOM.length));
  // Socket.IO encodes a broadcast before it looks for its sockets: a delivery none of whose
  // rooms has a socket on this node (most of them, with many nodes) is skipped before that.
  // No rooms would mean every socket: never.
  const here = io.sockets.adapter.rooms;
  const reaches = (d: Delivery) =>
    d.rooms.some((room) => {
      const sockets = here.get(room);
      if (!sockets || !d.except) return Boolean(sockets);
      for (const id of sockets) if (!d.except.includes(id)) return true;
      return false;
    });
  for (const d of fanout.deliveries) {
    // The sender's only tab (the common case) leaves nobody in the visitor's room: not even encoded.
    if (!reaches(d)) continue;
    // A socket's id is a room of its own: `except` leaves exactly that socket out.
    (d.except ? io.local.to(d.rooms).except(d.except) : io.local.to(d.rooms)).emit(d.event, d.payload);
  }
  if (!fanout.visitors) return;
  const registry = visitorSockets(io);
  for (const v of fanout.visitors) registry.setConversation(v.id, v.conversation);
}

/**
 * One Redis publish for a change whatever the number of its events (issue 15): a chat message
 * goes to the consoles with its conversation and to the visitor's room without it, two
 * payloads that would be two publishes (each decoded by every node) through the adapter's room
 * broadcast. Here the whole change is one server-side emit; each node delivers it to its own
 * sockets (`io.local`) and updates its own visitors' audience. Publishes of one node reach the
 * others in order, on the adapter's connections, with its other broadcasts.
 */
export function fanout(app: FastifyInstance, change: Fanout, clustered: boolean): void {
  deliverLocally(app.io, change);
  if (clustered) app.io.serverSideEmit(FANOUT_EVENT, change);
}
