import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_INVALID } from '@parley/shared';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call } from '../../test/factories.js';
import { buildVisitor } from '../../test/chatFactories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Msg = { id: number; message: string };
const texts = (list: Msg[]) => list.map((m) => m.message);

describe('polling messages with the commit-safe cursor', () => {
  it('a poll with the last next_cursor returns exactly what was committed since, on the console and in the widget', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildVisitor(t.app, owner.widgetKey);
    const consoleGet = (cursor?: string) =>
      call(t.app, 'GET', `/api/vms/messages/${v.id}${cursor ? `?cursor=${cursor}` : ''}`, { token: owner.token });
    const widgetGet = (cursor?: string) => call(t.app, 'GET', `/api/widget/messages${cursor ? `?cursor=${cursor}` : ''}`, { token: v.token });

    // Before the conversation exists: empty, with a cursor that will see its first message.
    const before = await widgetGet();
    expect(before.body.data).toEqual([]);
    expect(typeof before.body.next_cursor).toBe('string');
    const consoleBefore = (await consoleGet()).body.next_cursor as string;

    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'one' } });
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'two' } });
    const first = await consoleGet(consoleBefore);
    expect(first.status).toBe(200);
    expect(texts(first.body.data)).toEqual(['one', 'two']);
    const widgetFirst = await widgetGet(before.body.next_cursor);
    expect(texts(widgetFirst.body.data)).toEqual(['one', 'two']);

    // Nothing new: nothing again.
    const idle = await consoleGet(first.body.next_cursor);
    expect(idle.body.data).toEqual([]);

    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'three' } });
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'four' } });
    const next = await consoleGet(idle.body.next_cursor);
    expect(texts(next.body.data)).toEqual(['three', 'four']);
    expect((await consoleGet(next.body.next_cursor)).body.data).toEqual([]);
    const widgetNext = await widgetGet(widgetFirst.body.next_cursor);
    expect(texts(widgetNext.body.data)).toEqual(['three', 'four']);

    // A full load still answers everything, and since_id keeps its meaning (SPEC.md section 7).
    expect(texts((await consoleGet()).body.data)).toEqual(['one', 'two', 'three', 'four']);
    const sinceId = await call(t.app, 'GET', `/api/widget/messages?since_id=${first.body.data[1].id}`, { token: v.token });
    expect(texts(sinceId.body.data)).toEqual(['three', 'four']);
  });

  it('refuses a cursor it did not give out, in the envelope', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildVisitor(t.app, owner.widgetKey);
    for (const bad of ['not a cursor!', 'abc', Buffer.from('9:3:').toString('base64url'), 'x'.repeat(20_000)]) {
      const res = await call(t.app, 'GET', `/api/widget/messages?cursor=${encodeURIComponent(bad)}`, { token: v.token });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: CURSOR_INVALID, error: CURSOR_INVALID, errors: { cursor: [CURSOR_INVALID] } });
      const viaConsole = await call(t.app, 'GET', `/api/vms/messages/${v.id}?cursor=${encodeURIComponent(bad)}`, { token: owner.token });
      expect(viaConsole.status).toBe(422);
    }
  });
});
