
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAccount, call, type TestOwner, everyoneOffline } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { callMultipart, pngFile } from '../../test/multipart.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const PUBLIC_KEYS = ['agent_online', 'avatar_url', 'back_at', 'color', 'follow_up_greeting', 'greetings_by_language', 'initial_greeting', 'language', 'name', 'powered_by', 'title'];

async function customise(app: TestApp['app'], owner: TestOwner): Promise<string> {
  const look = await callMultipart(app, 'POST', '/api/vms/chatwidget-settings', {
    token: owner.token,
    fields: { name: 'Shop Help', title: 'Customer care', color: '#224466' },
    files: { avatar: pngFile() },
  });
  expect(look.status).toBe(200);
  const greet = await call(app, 'POST', '/api/vms/greetings', {
    token: owner.token,
    body: { initial_greeting: 'Hi from the shop', follow_up_greeting: 'Ask us anything' },
  });
  expect(greet.status).toBe(200);
  return look.body.data.avatar as string;
}

describe('GET /api/widget-settings (public)', () => {
  it('answers the saved look and greetings without a token, and nothing private', async () => {
    const owner = await buildAccount(t.app);
    const avatar = await customise(t.app, owner);
    const res = await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toEqual({
      message: 'success',
      data: {
        name: 'Shop Help',
        title: 'Customer care',
        color: '#224466',
        avatar_url: `/storage/${avatar}`,
        initial_greeting: 'Hi from the shop',
        follow_up_greeting: 'Ask us anything',
        agent_online: true,
        back_at: null,
        powered_by: 'Powered by Parley',
        language: '',
        greetings_by_language: {},
      },
    });
    expect(Object.keys(res.body.data).sort()).toEqual(PUBLIC_KEYS);
    const raw = JSON.stringify(res.body);
    expect(raw).not.toContain(owner.email);
    expect(raw.replace(avatar, '')).not.toContain(owner.user.account_id);
    expect(raw).not.toContain('email_notifications');
  });

  it('answers the defaults of a new account, and agent_online false when nobody is signed in recently', async () => {
    const owner = await buildAccount(t.app, { name: 'Dana' });
    await everyoneOffline(t.app, owner);
    const res = await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`);
    expect(res.body.data).toEqual({
      name: 'Dana',
      title: '',
      color: '#667eea',
      avatar_url: '',
      initial_greeting: 'Hello! How can we assist you today?',
      follow_up_greeting: 'Feel free to ask any questions!',
      agent_online: false,
      back_at: null,
      powered_by: 'Powered by Parley',
      language: '',
      greetings_by_language: {},
    });
  });

  it('gives an absolute avatar URL when PUBLIC_URL is set', async () => {
    const other = await createTestApp({ PUBLIC_URL: 'https://chat.example.com' });
    try {
      const owner = await buildAccount(other.app);
      const avatar = await customise(other.app, owner);
      const res = await call(other.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`);
      expect(res.body.data.avatar_url).toBe(`https://chat.example.com/storage/${avatar}`);
    } finally {
      await other.close();
    }
  });

  it('is open to any origin (CORS)', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`, { headers: { origin: 'https://shop.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
  });

  it.each([
    ['an unknown code', '?unique_code=nope-not-a-key', 404, 'Unknown widget'],
    ['SQL text', `?unique_code=${encodeURIComponent("' or 1=1 --")}`, 404, 'Unknown widget'],
    ['a huge code', `?unique_code=${'a'.repeat(500)}`, 422, 'Unknown widget'],
    ['no code', '', 422, 'unique_code is required'],
    ['an empty code', '?unique_code=', 422, 'unique_code is required'],
  ])('refuses %s', async (_label, query, status, message) => {
    const res = await call(t.app, 'GET', `/api/widget-settings${query}`);
    expect(res.status).toBe(status);
    expect(res.body.message).toBe(message);
    expect(res.body.error).toBe(message);
  });
});
