import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';

/**
 * The SQL statements `run` makes the app send on behalf of code whose stack matches `who`,
 * counted at the driver (PGlite or the pg pool): the server's background work, which reads
 * meanwhile, is not counted. Async frames count (`at async pollOrAuthenticate`). A statement run
 * through the database's fair queue loses its caller's frames: `by: 'sql'` matches `who` against
 * the statement's text instead. Statements inside transactions count too.
 */
export async function statementsOf<T>(app: FastifyInstance, who: RegExp, run: () => Promise<T>, by: 'stack' | 'sql' = 'stack'): Promise<{ result: T; statements: number }> {
  type Queryable = { query: (...args: unknown[]) => unknown };
  const client = (app.db as unknown as { $client: Queryable & { connect?: (...args: unknown[]) => Promise<Queryable>; transaction?: (...args: unknown[]) => unknown } }).$client;
  let statements = 0;
  const count = (args: unknown[]) => {
    if (by === 'sql') {
      if (who.test(String(typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: unknown }).text : args[0]))) statements++;
      return;
    }
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 60; // the driver's frames come first
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = depth;
    if (who.test(stack)) statements++;
  };
  /** Counts what `target.query` runs while the test runs (and leaves it as it was afterwards). */
  const watched = new Set<Queryable>();
  const watch = (target: Queryable) => {
    if (watched.has(target)) return;
    watched.add(target);
    const query = target.query.bind(target);
    spies.push(
      vi.spyOn(target, 'query').mockImplementation((...args: unknown[]) => {
        count(args);
        return query(...args);
      }),
    );
  };
  const spies: { mockRestore: () => void }[] = [];
  watch(client);
  // A transaction's statements go through its own connection (pg: a client checked out of the
  // pool) or its own handle (PGlite's transaction callback): those are counted too.
  if (client.connect) {
    const connect = client.connect.bind(client);
    spies.push(
      vi.spyOn(client as Required<typeof client>, 'connect').mockImplementation(async (...args: unknown[]) => {
        const conn = await connect(...args);
        watch(conn);
        return conn;
      }),
    );
  }
  if (client.transaction) {
    const transaction = client.transaction.bind(client);
    spies.push(
      vi.spyOn(client as Required<typeof client>, 'transaction').mockImplementation((...args: unknown[]) => {
        const [callback, ...rest] = args as [(tx: Queryable) => unknown, ...unknown[]];
        return transaction((tx: Queryable) => {
          const query = tx.query.bind(tx);
          tx.query = (...a: unknown[]) => {
            count(a);
            return query(...a);
          };
          return callback(tx);
        }, ...rest);
      }),
    );
  }
  try {
    return { result: await run(), statements };
  } finally {
    for (const spy of spies.reverse()) spy.mockRestore();
  }
}

/** The widget's poll and the visitor's authentication (routes/widget/widget.ts, plugins/visitorAuth.ts). */
export const WIDGET_POLL = /pollOrAuthenticate|authenticateVisitor|routes\/widget\/widget\.ts/;
