import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';

/**
 * The SQL statements `run` makes the app send on behalf of code whose stack matches `who`,
 * counted at the driver (PGlite or the pg pool): the server's background work, which reads
 * meanwhile, is not counted. Async frames count (`at async pollOrAuthenticate`). A statement run
 * through the database's fair queue loses its caller's frames: `by: 'sql'` matches `who` against
 * the statement's text instead.
 */
export async function statementsOf<T>(app: FastifyInstance, who: RegExp, run: () => Promise<T>, by: 'stack' | 'sql' = 'stack'): Promise<{ result: T; statements: number }> {
  const client = (app.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const query = client.query.bind(client);
  let statements = 0;
  const spy = vi.spyOn(client, 'query').mockImplementation((...args: unknown[]) => {
    if (by === 'sql') {
      if (who.test(String(typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: unknown }).text : args[0]))) statements++;
      return query(...args);
    }
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 60; // the driver's frames come first
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = depth;
    if (who.test(stack)) statements++;
    return query(...args);
  });
  try {
    return { result: await run(), statements };
  } finally {
    spy.mockRestore();
  }
}

/** The widget's poll and the visitor's authentication (routes/widget/widget.ts, plugins/visitorAuth.ts). */
export const WIDGET_POLL = /pollOrAuthenticate|authenticateVisitor|routes\/widget\/widget\.ts/;
