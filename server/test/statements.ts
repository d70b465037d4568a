import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';

type Counted<T> = Promise<{ result: T; statements: number }>;

/**
 * The SQL statements `run` makes the app send on behalf of code whose stack matches `who`,
 * counted at the driver (PGlite or the pg pool): the server's background work, which reads
 * meanwhile, is not counted. Async frames count (`at async pollOrAuthenticate`). A statement run
 * through the database's fair queue loses its caller's frames: `by: 'sql'` matches `who` against
 * the statement's text instead. Statements inside transactions count too (on PGlite, not its
 * BEGIN and COMMIT, which PGlite runs itself where no stack or text tells whose they are).
 */
export function statementsOf<T>(app: FastifyInstance, who: RegExp, run: () => Promise<T>, by: 'stack' | 'sql' = 'stack'): Counted<T> {
  return countStatements(app, run, (args) => {
    if (by === 'sql') return who.test(String(typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: unknown }).text : args[0]));
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 60; // the driver's frames come first
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = depth;
    return who.test(stack);
  });
}

const running = new AsyncLocalStorage<true>();

/**
 * Every SQL statement `run` sends itself, told by its async context rather than by the stack (a
 * drizzle query is a thenable: awaiting one leaves the caller's frames out of the driver's
 * stack), transactions included: for code called straight from a test, with nothing else of
 * the app's in its async context.
 */
export function statementsOfRun<T>(app: FastifyInstance, run: () => Promise<T>): Counted<T> {
  return countStatements(app, () => running.run(true, run), () => running.getStore() === true, { transactionEnds: true });
}

/**
 * Counts the statements `run` makes the driver send that `counts` accepts (given the query's
 * arguments). `transactionEnds`: a PGlite transaction's BEGIN and COMMIT count too, when `counts`
 * accepts the call that opens it (pg sends them through the connection, counted as any statement).
 */
async function countStatements<T>(app: FastifyInstance, run: () => Promise<T>, counts: (args: unknown[]) => boolean, { transactionEnds = false } = {}): Counted<T> {
  type Queryable = { query: (...args: unknown[]) => unknown; exec?: (...args: unknown[]) => unknown };
  const client = (app.db as unknown as { $client: Queryable & { connect?: (...args: unknown[]) => Promise<Queryable>; transaction?: (...args: unknown[]) => unknown } }).$client;
  let statements = 0;
  const count = (args: unknown[]) => {
    if (counts(args)) statements++;
  };
  const spies: { mockRestore: () => void }[] = [];
  // What the pool (or PGlite) runs itself while the test runs (left as it was afterwards).
  const query = client.query.bind(client);
  spies.push(
    vi.spyOn(client, 'query').mockImplementation((...args: unknown[]) => {
      count(args);
      return query(...args);
    }),
  );
  // A transaction's statements go through its own connection (pg: a client checked out of the
  // pool) or its own handle (PGlite's transaction callback): those are counted too.
  if (client.connect) {
    const connect = client.connect.bind(client);
    spies.push(
      vi.spyOn(client as Required<typeof client>, 'connect').mockImplementation((...args: unknown[]) => {
        // A checkout with a callback is the pool's own (pool.query): its statement is counted there.
        if (args.length > 0) return connect(...args);
        // A transaction's connection: its statements count until it is released (the pool's own
        // checkouts use it afterwards, counted by the pool's query).
        return connect().then((conn) => {
          const c = conn as unknown as { query: Queryable['query']; release: (...a: unknown[]) => unknown };
          const { query, release } = c;
          c.query = (...a: unknown[]) => {
            count(a);
            return query.apply(conn, a);
          };
          c.release = (...a: unknown[]) => {
            c.query = query;
            c.release = release;
            return release.apply(conn, a);
          };
          return conn;
        });
      }),
    );
  }
  if (client.transaction) {
    const transaction = client.transaction.bind(client);
    spies.push(
      vi.spyOn(client as Required<typeof client>, 'transaction').mockImplementation((...args: unknown[]) => {
        const [callback, ...rest] = args as [(tx: Queryable) => unknown, ...unknown[]];
        // PGlite runs the transaction's BEGIN and COMMIT (or ROLLBACK) itself.
        const ends = transactionEnds && counts(['BEGIN']);
        if (ends) statements++;
        return (transaction((tx: Queryable) => {
          for (const name of ['query', 'exec'] as const) {
            const original = tx[name]?.bind(tx);
            if (original) {
              tx[name] = (...a: unknown[]) => {
                count(a);
                return original(...a);
              };
            }
          }
          return callback(tx);
        }, ...rest) as Promise<unknown>).finally(() => {
          if (ends) statements++;
        });
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
