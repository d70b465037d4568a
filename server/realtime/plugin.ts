import type { FastifyInstance } from 'fastify';

/** Socket.IO on the Fastify server: console and widget sockets, rooms, presence, push. */
export async function registerRealtime(_app: FastifyInstance): Promise<void> {}
