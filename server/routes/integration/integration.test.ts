import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetLoads } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { metricsSince } from './integration.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;
/** Midnight UTC of the day `daysAgo` days before today. */
const dayStart = (daysAgo: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - daysAgo * DAY);
};

let loadSeq = 0;
async function insertLoads(owner: TestOwner, status: 'Active' | 'Pending' | 'Error', count: number, at: Date): Promise<void> {
  const rows = Array.from({ length: count }, () => ({
    id: `load-${loadSeq++}`,
    accountId: owner.user.account_id,
    status,
    createdAt: at,
    updatedAt: at,
  }));
  await t.database.db.insert(widgetLoads).values(rows);
}

describe('GET /api/vms/integration', () => {
  it("answers the snippet with the account's widget key, based on the request's host", async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/vms/integration', { token: owner.token, headers: { host: 'chat.example.com:8080' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      script: `<script src="http://chat.example.com:8080/widget.js" data-widget="${owner.widgetKey}" async></script>`,
    });
  });

  it('uses PUBLIC_URL when it is configured', async () => {
    const other = await createTestApp({ PUBLIC_URL: 'https://parley.example.com/' });
    try {
      const owner = await buildAccount(other.app);
      const res = await call(other.app, 'GET', '/api/vms/integration', { token: owner.token, headers: { host: 'ignored.example' } });
      expect(res.body.script).toBe(`<script src="https://parley.example.com/widget.js" data-widget="${owner.widgetKey}" async></script>`);
    } finally {
      await other.close();
    }
  });

  it('never writes a hostile Host header into the snippet', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/vms/integration', { token: owner.token, headers: { host: 'x"><img src=y>' } });
    expect(res.status).toBe(200);
    expect(res.body.script).toBe(`<script src="http://localhost/widget.js" data-widget="${owner.widgetKey}" async></script>`);
  });

  it('needs a token; an Agent may read it; each account gets its own key', async () => {
    expect((await call(t.app, 'GET', '/api/vms/integration')).status).toBe(401);
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    const agent = await buildMember(t.app, a, 'Agent');
    const res = await call(t.app, 'GET', '/api/vms/integration', { token: agent.token });
    expect(res.status).toBe(200);
    expect(res.body.script).toContain(`data-widget="${a.widgetKey}"`);
    const other = await call(t.app, 'GET', '/api/vms/integration', { token: b.token });
    expect(other.body.script).toContain(`data-widget="${b.widgetKey}"`);
    expect(other.body.script).not.toContain(a.widgetKey);
  });
});

describe('GET /api/vms/integration-metrics', () => {
  it('starts the window at midnight UTC six days before today', () => {
    expect(metricsSince(new Date('2025-03-10T15:30:00Z')).toISOString()).toBe('2025-03-04T00:00:00.000Z');
  });

  it('is empty for a new account', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/vms/integration-metrics', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', data: { data: [] } });
  });

  it('counts loads per UTC day and status for the last 7 days of this account only', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const HOUR = 3_600_000;
    await insertLoads(owner, 'Active', 2, new Date(dayStart(0).getTime() + 1000));
    await insertLoads(owner, 'Active', 1, new Date(dayStart(0).getTime() + 2 * HOUR));
    await insertLoads(owner, 'Pending', 1, dayStart(0));
    await insertLoads(owner, 'Error', 2, new Date(dayStart(2).getTime() + 23 * HOUR));
    await insertLoads(owner, 'Pending', 4, new Date(dayStart(6).getTime() + 1000));
    await insertLoads(owner, 'Active', 5, new Date(dayStart(6).getTime() - 1000)); // 7 days ago: out
    await insertLoads(owner, 'Active', 9, dayStart(30)); // long ago: out
    await insertLoads(other, 'Active', 3, new Date(dayStart(0).getTime() + 1000)); // another account: out

    const res = await call(t.app, 'GET', '/api/vms/integration-metrics', { token: owner.token });
    expect(res.status).toBe(200);
    const iso = (d: number) => dayStart(d).toISOString();
    expect(res.body.data.data).toEqual([
      { timestamp: iso(6), usage_count: 4, status: 'Pending' },
      { timestamp: iso(2), usage_count: 2, status: 'Error' },
      { timestamp: iso(0), usage_count: 3, status: 'Active' },
      { timestamp: iso(0), usage_count: 1, status: 'Pending' },
    ]);

    const theirs = await call(t.app, 'GET', '/api/vms/integration-metrics', { token: other.token });
    expect(theirs.body.data.data).toEqual([{ timestamp: iso(0), usage_count: 3, status: 'Active' }]);
  });

  it('needs a token, and an Agent may read', async () => {
    expect((await call(t.app, 'GET', '/api/vms/integration-metrics')).status).toBe(401);
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    await insertLoads(owner, 'Active', 1, new Date());
    const res = await call(t.app, 'GET', '/api/vms/integration-metrics', { token: agent.token });
    expect(res.status).toBe(200);
    expect(res.body.data.data).toEqual([{ timestamp: dayStart(0).toISOString(), usage_count: 1, status: 'Active' }]);
  });
});
