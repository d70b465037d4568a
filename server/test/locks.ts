import pg from 'pg';

/**
 * Resolves once a backend of this database that matches `where` (a condition on
 * pg_stat_activity, with $1.. from `args`) waits on a lock: tests that force an interleaving of
 * row locks start each step once the previous one waits, not after a guessed delay.
 */
export async function waitingOnLock(admin: pg.Client, where: string, args: unknown[] = []): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and ${where}`, args);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  const { rows } = await admin.query('select state, wait_event_type, left(query, 200) as query from pg_stat_activity where datname = current_database()');
  throw new Error(`nothing waits on a lock where ${where}: ${JSON.stringify(rows)}`);
}

/** Connections of one test file to `url()`'s database: `connect()` opens one, `endAll()` ends them (afterAll). */
export function pgClients(url: () => string | undefined) {
  const clients: pg.Client[] = [];
  return {
    async connect(): Promise<pg.Client> {
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      clients.push(c);
      return c;
    },
    async endAll(): Promise<void> {
      for (const c of clients.splice(0)) await c.end().catch(() => {});
    },
  };
}
