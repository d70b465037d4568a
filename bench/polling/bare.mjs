// The HTTP floor for the polling benchmark: plain Fastify answering the widget's poll URL with a
// constant "nothing new" page (no auth, no database), in its own process.
// Sends { port } over IPC once listening; exits on SIGTERM.
import path from 'node:path';
import { createRequire } from 'node:module';
import { answerEventLoopDelay, ROOT } from '../lib.mjs';

// Fastify as the server workspace resolves it.
const require = createRequire(path.join(ROOT, 'server/package.json'));
const Fastify = require('fastify');

try {
  const app = Fastify({ logger: false });
  app.get('/api/widget/messages', async () => ({ message: 'success', data: [], next_cursor: 'x', has_more: false }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => app.close().finally(() => process.exit(0)));
  answerEventLoopDelay(); // bench/polling/run.mjs reads this process's event-loop delay
  process.send({ port: app.server.address().port });
} catch (err) {
  process.send({ error: String(err?.stack ?? err) });
  process.exit(1);
}
