import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORTCUT_INVALID, SHORTCUT_TAKEN } from '@parley/shared';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const list = async (token: string) => (await call(t.app, 'GET', '/api/vms/canned-replies', { token })).body.data as { id: number; shortcut: string; title: string; text: string }[];
const create = (token: string, body: unknown) => call(t.app, 'POST', '/api/vms/canned-replies', { token, body });

describe('canned replies', () => {
  it('owner and Admin create, change and delete them; everyone of the account reads them, by shortcut', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');

    const a = await create(owner.token, { title: 'Greeting', text: 'Hi {{visitor.name}}, I am {{agent.name}}.', shortcut: '/Hello' });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ message: 'success', data: { id: expect.any(Number), title: 'Greeting', text: 'Hi {{visitor.name}}, I am {{agent.name}}.', shortcut: 'hello' } });
    const b = await create(admin.token, { title: 'Shipping', text: 'We ship in 2 days.', shortcut: 'ship' });
    expect(b.status).toBe(201);

    expect((await list(agent.token)).map((r) => r.shortcut)).toEqual(['hello', 'ship']);

    const patched = await call(t.app, 'PATCH', `/api/vms/canned-replies/${b.body.data.id}`, { token: admin.token, body: { text: 'We ship in 1 day.' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ id: b.body.data.id, title: 'Shipping', text: 'We ship in 1 day.', shortcut: 'ship' });

    expect((await call(t.app, 'DELETE', `/api/vms/canned-replies/${a.body.data.id}`, { token: owner.token })).body).toEqual({ message: 'success' });
    expect((await list(owner.token)).map((r) => r.text)).toEqual(['We ship in 1 day.']);
  });

  it('refuses an Agent every change with 403, changing nothing', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const made = await create(owner.token, { title: 'Bye', text: 'Goodbye!', shortcut: 'bye' });
    const id = made.body.data.id;
    for (const res of [
      await create(agent.token, { title: 'Mine', text: 'x', shortcut: 'mine' }),
      await call(t.app, 'PATCH', `/api/vms/canned-replies/${id}`, { token: agent.token, body: { text: 'changed' } }),
      await call(t.app, 'DELETE', `/api/vms/canned-replies/${id}`, { token: agent.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'You do not have permission to do this', error: 'You do not have permission to do this' });
    }
    expect(await list(owner.token)).toEqual([{ id, title: 'Bye', text: 'Goodbye!', shortcut: 'bye' }]);
  });

  it("keeps accounts apart: another account's reply is neither listed nor changeable (404)", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const made = await create(owner.token, { title: 'Hours', text: '9 to 5', shortcut: 'hours' });
    // The same shortcut is free in another account.
    expect((await create(other.token, { title: 'Hours', text: '24/7', shortcut: 'hours' })).status).toBe(201);
    expect((await list(other.token)).map((r) => r.text)).toEqual(['24/7']);
    const patch = await call(t.app, 'PATCH', `/api/vms/canned-replies/${made.body.data.id}`, { token: other.token, body: { text: 'hijack' } });
    expect(patch.status).toBe(404);
    expect(patch.body.message).toBe('Canned reply not found');
    expect((await call(t.app, 'DELETE', `/api/vms/canned-replies/${made.body.data.id}`, { token: other.token })).status).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/vms/canned-replies/abc', { token: owner.token })).status).toBe(404);
    expect((await call(t.app, 'DELETE', '/api/vms/canned-replies/99999999999', { token: owner.token })).status).toBe(404);
    expect((await list(owner.token)).map((r) => r.text)).toEqual(['9 to 5']);
    expect((await call(t.app, 'GET', '/api/vms/canned-replies')).status).toBe(401);
  });

  it('refuses bad input with field errors in the envelope, storing nothing', async () => {
    const owner = await buildAccount(t.app);
    await create(owner.token, { title: 'Taken', text: 'x', shortcut: 'taken' });
    const cases: [unknown, Record<string, string[]>][] = [
      [{ text: 'x', shortcut: 'a' }, { title: ['Title is required'] }],
      [{ title: ' ', text: 'x', shortcut: 'a' }, { title: ['Title is required'] }],
      [{ title: 't', text: '', shortcut: 'a' }, { text: ['Text is required'] }],
      [{ title: 't', text: 'x', shortcut: 'two words' }, { shortcut: [SHORTCUT_INVALID] }],
      [{ title: 't', text: 'x', shortcut: '/' }, { shortcut: ['Shortcut is required'] }],
      [{ title: 't', text: 'x', shortcut: 'a'.repeat(33) }, { shortcut: ['Shortcut must be at most 32 characters'] }],
      [{ title: 't'.repeat(101), text: 'x', shortcut: 'a' }, { title: ['Title must be at most 100 characters'] }],
      [{ title: 't', text: 'x', shortcut: 'TAKEN' }, { shortcut: [SHORTCUT_TAKEN] }],
    ];
    for (const [body, errors] of cases) {
      const res = await create(owner.token, body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
      expect(res.body.message).toBe(Object.values(errors)[0]![0]);
    }
    const other = await create(owner.token, { title: 'Other', text: 'y', shortcut: 'other' });
    const clash = await call(t.app, 'PATCH', `/api/vms/canned-replies/${other.body.data.id}`, { token: owner.token, body: { shortcut: 'taken' } });
    expect(clash.status).toBe(422);
    expect(clash.body.errors).toEqual({ shortcut: [SHORTCUT_TAKEN] });
    expect((await list(owner.token)).map((r) => r.shortcut)).toEqual(['other', 'taken']);
  });
});
