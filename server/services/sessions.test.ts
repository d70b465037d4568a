import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailChanges, knownDevices } from '../db/schema.js';
import { sweepExpiredSessions } from './sessions.js';
import { buildAccount, call } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { connect, connected, listen } from '../test/sockets.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const me = (t: TestApp, token: string) => call(t.app, 'GET', '/api/vms/user', { token });

describe('sessions end when idle (SESSION_IDLE_SECONDS), renewed by use', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ SESSION_IDLE_SECONDS: '3', SESSION_MAX_SECONDS: '3600' });
    base = await listen(t.app);
  });
  afterAll(() => t.close());

  it('a session used every half second lives past the idle lifetime; left alone, it ends', async () => {
    const owner = await buildAccount(t.app);
    for (let i = 0; i < 8; i++) {
      expect((await me(t, owner.token)).status).toBe(200);
      await sleep(500);
    }
    await sleep(3600);
    const res = await me(t, owner.token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated', error: 'Unauthenticated' });
  });

  it('an idle session closes its live console socket (the one revocation path)', async () => {
    const owner = await buildAccount(t.app);
    const socket = connect(base, { token: owner.token });
    try {
      await connected(socket);
      const reason = await new Promise<string>((resolve, reject) => {
        socket.once('disconnect', (r) => resolve(r));
        setTimeout(() => reject(new Error('the socket stayed open')), 8000);
      });
      expect(reason).toBe('io server disconnect');
      expect((await me(t, owner.token)).status).toBe(401);
      // It cannot come back with the same token.
      const again = connect(base, { token: owner.token });
      await expect(connected(again)).rejects.toThrow('Unauthenticated');
      again.close();
    } finally {
      socket.close();
    }
  });
});

describe('the expiry sweep also clears stale sign-in rows', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('deletes email-change links past their time and devices unseen for a year, keeps the rest', async () => {
    const owner = await buildAccount(t.app);
    const userId = owner.user.id;
    const db = t.database.db;
    await db.insert(emailChanges).values([
      { tokenHash: 'dead', userId, newEmail: 'a@example.com', expiresAt: new Date(Date.now() - 1000) },
      { tokenHash: 'live', userId, newEmail: 'b@example.com', expiresAt: new Date(Date.now() + 3_600_000) },
    ]);
    await db.insert(knownDevices).values([
      { userId, tokenHash: 'old', lastUsedAt: new Date(Date.now() - 400 * 86_400_000) },
      { userId, tokenHash: 'recent' },
    ]);
    await sweepExpiredSessions(t.app);
    expect((await db.select().from(emailChanges).where(eq(emailChanges.userId, userId))).map((r) => r.tokenHash)).toEqual(['live']);
    expect((await db.select().from(knownDevices).where(eq(knownDevices.userId, userId))).map((r) => r.tokenHash)).toEqual(['recent']);
    expect((await me(t, owner.token)).status).toBe(200);
  });
});

describe('sessions end SESSION_MAX_SECONDS after sign-in, however much they are used', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ SESSION_IDLE_SECONDS: '3600', SESSION_MAX_SECONDS: '3' });
    base = await listen(t.app);
  });
  afterAll(() => t.close());

  it('a session in constant use ends at its absolute lifetime, and its socket closes', async () => {
    const owner = await buildAccount(t.app);
    const socket = connect(base, { token: owner.token });
    const closed = new Promise<string>((resolve) => socket.once('disconnect', (r) => resolve(r)));
    try {
      await connected(socket);
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 8000) {
        status = (await me(t, owner.token)).status;
        if (status === 200) await sleep(250);
      }
      expect(status).toBe(401);
      expect(Date.now() - started).toBeGreaterThan(2000);
      expect(await closed).toBe('io server disconnect');
      // Signing in again starts a new session.
      const fresh = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password } });
      expect((await me(t, fresh.body.token)).status).toBe(200);
    } finally {
      socket.close();
    }
  });
});
