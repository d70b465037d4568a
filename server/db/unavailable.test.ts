import { describe, expect, it } from 'vitest';
import { SERVICE_UNAVAILABLE } from '../errors.js';
import { createTestApp } from '../test/harness.js';
import { buildAccount, call } from '../test/factories.js';
import { DatabaseUnavailableError, isDatabaseUnavailable, isDatabaseUnreachable } from './client.js';

describe('a database that cannot serve answers 503, never 500', () => {
  it('tells unreachable-database errors from query errors, through drizzle’s wrapping', () => {
    const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: select 1'), { cause });
    for (const e of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Query read timeout'),
      Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('PGlite is closed'),
      new DatabaseUnavailableError(),
    ]) {
      expect(isDatabaseUnavailable(e)).toBe(true);
      expect(isDatabaseUnreachable(wrapped(e))).toBe(true);
    }
    // Reachable but busy: 503, without stopping everyone's calls.
    for (const busy of [
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ]) {
      expect(isDatabaseUnavailable(wrapped(busy))).toBe(true);
      expect(isDatabaseUnreachable(wrapped(busy))).toBe(false);
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('invalid input syntax'), { code: '22P02' })))).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
  });

  it('a closed database (embedded or pool) answers 503 in the envelope; /healthz stays 200', async () => {
    const t = await createTestApp();
    try {
      const owner = await buildAccount(t.app);
      await t.database.close();
      const res = await call(t.app, 'GET', '/api/vms/conversations', { token: owner.token });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: SERVICE_UNAVAILABLE, error: SERVICE_UNAVAILABLE, code: 'unavailable' });
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      t.database.close = async () => {}; // already closed
      await t.close();
    }
  });
});
