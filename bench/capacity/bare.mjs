// The floor for the start-up bench: Fastify + Socket.IO with a /healthz route, nothing else.
// Usage: PORT=... node bare.mjs
import Fastify from 'fastify';
import { Server } from 'socket.io';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
const io = new Server(app.server, { serveClient: false });
io.on('connection', () => {});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));
