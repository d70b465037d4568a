import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVATAR_MAX_BYTES } from '@parley/shared';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { callMultipart, pngFile, TINY_PNG } from '../../test/multipart.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const allOn = { newChats: true, offlineMessages: true, missedChats: true };

async function storedFiles(owner: TestOwner): Promise<string[]> {
  return fs.readdir(path.join(t.dataDir, 'storage', owner.user.account_id)).catch(() => []);
}
const getSettings = async (token: string) => (await call(t.app, 'GET', '/api/vms/widget-settings', { token })).body.data;
const saveSettings = (token: string, fields: Record<string, string>, avatar?: ReturnType<typeof pngFile>) =>
  callMultipart(t.app, 'POST', '/api/vms/widget-settings', { token, fields, ...(avatar ? { files: { avatar } } : {}) });

describe('GET /api/vms/widget-settings', () => {
  it('answers the defaults of a new account', async () => {
    const owner = await buildAccount(t.app, { name: 'Nora Owner' });
    const res = await call(t.app, 'GET', '/api/vms/widget-settings', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      data: { name: 'Nora Owner', title: '', color: '#667eea', avatar: '', avatar_url: '', email_notifications: allOn, hide_branding: false },
    });
  });

  it('needs a token, and lets an Agent read', async () => {
    expect((await call(t.app, 'GET', '/api/vms/widget-settings')).status).toBe(401);
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const res = await call(t.app, 'GET', '/api/vms/widget-settings', { token: agent.token });
    expect(res.status).toBe(200);
    expect(res.body.data.color).toBe('#667eea');
  });
});

describe('POST /api/vms/widget-settings', () => {
  it('saves name, color and notifications from multipart, and GET shows them', async () => {
    const owner = await buildAccount(t.app);
    const notifications = { newChats: false, offlineMessages: true, missedChats: false };
    const res = await saveSettings(owner.token, { name: ' Support Bot ', color: '#112233', email_notifications: JSON.stringify(notifications) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      data: { name: 'Support Bot', title: '', color: '#112233', avatar: '', avatar_url: '', email_notifications: notifications, hide_branding: false },
    });
    expect(await getSettings(owner.token)).toEqual(res.body.data);
  });

  it('treats a missing toggle as on, and keeps the toggles when email_notifications is absent', async () => {
    const owner = await buildAccount(t.app);
    const partial = await saveSettings(owner.token, { name: 'A', color: '#000000', email_notifications: '{"newChats":false}' });
    expect(partial.body.data.email_notifications).toEqual({ ...allOn, newChats: false });
    const without = await saveSettings(owner.token, { name: 'B', color: '#000000' });
    expect(without.status).toBe(200);
    expect(without.body.data.email_notifications).toEqual({ ...allOn, newChats: false });
  });

  it('saves the title or department when sent (Settings), keeps it when absent, refuses it blank', async () => {
    const owner = await buildAccount(t.app);
    const saved = await saveSettings(owner.token, { name: 'A', color: '#000000', title: 'Sales desk' });
    expect(saved.status).toBe(200);
    expect(saved.body.data.title).toBe('Sales desk');
    expect((await saveSettings(owner.token, { name: 'B', color: '#000000' })).body.data.title).toBe('Sales desk');
    const blank = await saveSettings(owner.token, { name: 'C', color: '#000000', title: '  ' });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.title).toEqual(['Title or department is required']);
    expect((await getSettings(owner.token)).name).toBe('B');
  });

  it('accepts a JSON body too', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/widget-settings', {
      token: owner.token,
      body: { name: 'Json', color: '#abcdef', email_notifications: JSON.stringify({ missedChats: false }) },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Json', color: '#abcdef', email_notifications: { ...allOn, missedChats: false } });
  });

  it.each([
    [{ name: '' }, 'name', 'Name is required'],
    [{ name: '   ' }, 'name', 'Name is required'],
    [{ name: 'x'.repeat(256) }, 'name', 'Must be at most 255 characters'],
    [{ color: 'red' }, 'color', 'Please choose a valid color'],
    [{ color: '#12345' }, 'color', 'Please choose a valid color'],
    [{ color: '<script>' }, 'color', 'Please choose a valid color'],
    [{ email_notifications: 'not json' }, 'email_notifications', 'Notification settings must be valid JSON'],
    [{ email_notifications: '{"newChats":"yes"}' }, 'email_notifications.newChats', 'Must be true or false'],
  ])('refuses %o with "%s: %s" and changes nothing', async (patch, field, message) => {
    const owner = await buildAccount(t.app);
    const before = await getSettings(owner.token);
    const res = await saveSettings(owner.token, { name: 'Valid', color: '#123456', ...patch });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect(res.body.error).toBe(message);
    expect(await getSettings(owner.token)).toEqual(before);
  });

  it('needs a token', async () => {
    const res = await saveSettings('', { name: 'X', color: '#123456' });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('No authentication token found');
  });

  it('forbids an Agent (403, nothing changed) and allows an Admin-role member', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const denied = await saveSettings(agent.token, { name: 'Agent Edit', color: '#123456' }, pngFile());
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('You do not have permission to do this');
    expect((await getSettings(owner.token)).name).toBe('Olivia Owner');
    expect(await storedFiles(owner)).toEqual([]);
    const ok = await saveSettings(admin.token, { name: 'Admin Edit', color: '#123456' });
    expect(ok.status).toBe(200);
    expect((await getSettings(owner.token)).name).toBe('Admin Edit');
  });

  it("never shows or changes another account's settings", async () => {
    const a = await buildAccount(t.app, { name: 'Alpha' });
    const b = await buildAccount(t.app, { name: 'Beta' });
    await saveSettings(a.token, { name: 'Alpha Widget', color: '#aa0000' }, pngFile());
    expect(await getSettings(b.token)).toEqual({ name: 'Beta', title: '', color: '#667eea', avatar: '', avatar_url: '', email_notifications: allOn, hide_branding: false });
    await saveSettings(b.token, { name: 'Beta Widget', color: '#00bb00' });
    expect(await getSettings(a.token)).toMatchObject({ name: 'Alpha Widget', color: '#aa0000' });
  });
});

describe('avatar upload', () => {
  it('stores a real PNG under a random name and serves it from /storage with nosniff', async () => {
    const owner = await buildAccount(t.app);
    const res = await saveSettings(owner.token, { name: 'With Avatar', color: '#123456' }, pngFile(TINY_PNG, 'me.png'));
    expect(res.status).toBe(200);
    const { avatar, avatar_url } = res.body.data;
    expect(avatar).toMatch(new RegExp(`^${owner.user.account_id}/[A-Za-z0-9_-]{24}\\.png$`));
    expect(avatar).not.toContain('me');
    expect(avatar_url).toBe(`/storage/${avatar}`);
    const file = await t.app.inject({ method: 'GET', url: avatar_url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.rawPayload.equals(TINY_PNG)).toBe(true);
    expect((await getSettings(owner.token)).avatar).toBe(avatar);
  });

  it('removes the replaced avatar file', async () => {
    const owner = await buildAccount(t.app);
    const first = (await saveSettings(owner.token, { name: 'A', color: '#123456' }, pngFile())).body.data.avatar;
    const second = (await saveSettings(owner.token, { name: 'A', color: '#123456' }, pngFile())).body.data.avatar;
    expect(second).not.toBe(first);
    expect(await storedFiles(owner)).toEqual([path.basename(second)]);
    expect((await t.app.inject({ method: 'GET', url: `/storage/${first}` })).statusCode).toBe(404);
  });

  it('refuses an image over 2 MB with 413 and stores nothing', async () => {
    const owner = await buildAccount(t.app);
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(AVATAR_MAX_BYTES + 1 - TINY_PNG.length + 1)]);
    const res = await saveSettings(owner.token, { name: 'Too Big', color: '#123456' }, pngFile(big));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('Image size should be less than 2MB');
    expect(res.body.error).toBe('Image size should be less than 2MB');
    expect(await storedFiles(owner)).toEqual([]);
    expect((await getSettings(owner.token)).name).toBe('Olivia Owner');
  });

  it.each([
    ['an HTML page named .png', pngFile(Buffer.from('<html><script>alert(1)</script></html>'), 'x.png')],
    ['an SVG image', { filename: 'x.svg', contentType: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') }],
  ])('refuses %s with 415, storing and changing nothing', async (_label, file) => {
    const owner = await buildAccount(t.app);
    const res = await saveSettings(owner.token, { name: 'Sneaky', color: '#123456' }, file);
    expect(res.status).toBe(415);
    expect(res.body.errors.avatar).toEqual(['Only PNG, JPEG, GIF and WebP images are allowed']);
    expect(await storedFiles(owner)).toEqual([]);
    expect((await getSettings(owner.token)).name).toBe('Olivia Owner');
  });

  it('stores no file when the text fields are invalid', async () => {
    const owner = await buildAccount(t.app);
    const res = await saveSettings(owner.token, { name: '', color: '#123456' }, pngFile());
    expect(res.status).toBe(422);
    expect(await storedFiles(owner)).toEqual([]);
  });

  it('refuses a file in another field', async () => {
    const owner = await buildAccount(t.app);
    const res = await callMultipart(t.app, 'POST', '/api/vms/widget-settings', {
      token: owner.token,
      fields: { name: 'A', color: '#123456' },
      files: { image: pngFile() },
    });
    expect(res.status).toBe(422);
    expect(await storedFiles(owner)).toEqual([]);
  });
});

describe('POST /api/vms/chatwidget-settings (onboarding step 1)', () => {
  const save = (token: string, fields: Record<string, string>, avatar?: ReturnType<typeof pngFile>) =>
    callMultipart(t.app, 'POST', '/api/vms/chatwidget-settings', { token, fields, ...(avatar ? { files: { avatar } } : {}) });

  it('saves name, title, color and avatar', async () => {
    const owner = await buildAccount(t.app);
    const res = await save(owner.token, { name: 'Sam', title: 'Sales', color: '#ff8800' }, pngFile());
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data).toMatchObject({ name: 'Sam', title: 'Sales', color: '#ff8800', email_notifications: allOn });
    expect(res.body.data.avatar_url).toBe(`/storage/${res.body.data.avatar}`);
    expect(await getSettings(owner.token)).toEqual(res.body.data);
  });

  it.each([
    [{ name: '' }, 'name', 'Name is required'],
    [{ title: '' }, 'title', 'Title or department is required'],
    [{ title: '  ' }, 'title', 'Title or department is required'],
    [{ color: 'blue' }, 'color', 'Please choose a valid color'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const owner = await buildAccount(t.app);
    const res = await save(owner.token, { name: 'Sam', title: 'Sales', color: '#ff8800', ...patch });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('is for the owner and Admin-role members only', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    expect((await save('', { name: 'x', title: 'y', color: '#000000' })).status).toBe(401);
    expect((await save(agent.token, { name: 'x', title: 'y', color: '#000000' })).status).toBe(403);
    expect((await getSettings(owner.token)).title).toBe('');
    expect((await save(admin.token, { name: 'x', title: 'y', color: '#000000' })).status).toBe(200);
    expect((await getSettings(owner.token)).title).toBe('y');
  });
});

describe('GET/POST /api/vms/greetings', () => {
  it('answers the defaults, then what was saved', async () => {
    const owner = await buildAccount(t.app);
    const first = await call(t.app, 'GET', '/api/vms/greetings', { token: owner.token });
    expect(first.body).toEqual({
      message: 'success',
      data: { initial_greeting: 'Hello! How can we assist you today?', follow_up_greeting: 'Feel free to ask any questions!' },
    });
    const saved = await call(t.app, 'POST', '/api/vms/greetings', {
      token: owner.token,
      body: { initial_greeting: ' Hi <b>there</b> ', follow_up_greeting: null },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ message: 'success', data: { initial_greeting: 'Hi <b>there</b>', follow_up_greeting: '' } });
    expect((await call(t.app, 'GET', '/api/vms/greetings', { token: owner.token })).body.data).toEqual(saved.body.data);
  });

  it.each([
    [{ initial_greeting: '' }, 'initial_greeting', 'Initial greeting is required'],
    [{ initial_greeting: '   ' }, 'initial_greeting', 'Initial greeting is required'],
    [{ initial_greeting: 42 }, 'initial_greeting', 'Initial greeting is required'],
    [{ initial_greeting: 'x'.repeat(501) }, 'initial_greeting', 'Initial greeting must be at most 500 characters'],
    [{ follow_up_greeting: 'x'.repeat(501) }, 'follow_up_greeting', 'Follow-up greeting must be at most 500 characters'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/greetings', { token: owner.token, body: { initial_greeting: 'Hi', ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('lets everyone read, only owner and Admin role write, per account', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const body = { initial_greeting: 'Welcome!', follow_up_greeting: 'Ask away' };
    expect((await call(t.app, 'GET', '/api/vms/greetings')).status).toBe(401);
    expect((await call(t.app, 'POST', '/api/vms/greetings', { body })).status).toBe(401);
    expect((await call(t.app, 'POST', '/api/vms/greetings', { token: agent.token, body })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/greetings', { token: agent.token })).body.data.initial_greeting).toBe(
      'Hello! How can we assist you today?',
    );
    expect((await call(t.app, 'POST', '/api/vms/greetings', { token: admin.token, body })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/greetings', { token: agent.token })).body.data).toEqual(body);
    expect((await call(t.app, 'GET', '/api/vms/greetings', { token: other.token })).body.data.initial_greeting).toBe(
      'Hello! How can we assist you today?',
    );
  });
});

describe('GET/POST /api/vms/account-info', () => {
  it('answers empty fields first, then what was saved', async () => {
    const owner = await buildAccount(t.app);
    const first = await call(t.app, 'GET', '/api/vms/account-info', { token: owner.token });
    expect(first.body).toEqual({ message: 'success', data: { website_url: '', phone_number: '', business_location: '' } });
    const data = { website_url: 'https://shop.example.com/home', phone_number: '+44 20-7946-0958', business_location: 'London' };
    const saved = await call(t.app, 'POST', '/api/vms/account-info', { token: owner.token, body: data });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ message: 'success', data });
    expect((await call(t.app, 'GET', '/api/vms/account-info', { token: owner.token })).body.data).toEqual(data);
    const cleared = await call(t.app, 'POST', '/api/vms/account-info', { token: owner.token, body: {} });
    expect(cleared.body.data).toEqual({ website_url: '', phone_number: '', business_location: '' });
  });

  it.each([
    [{ website_url: 'not a url' }, 'website_url', 'Please enter a valid URL'],
    [{ website_url: 'javascript:alert(1)' }, 'website_url', 'Please enter a valid URL'],
    [{ phone_number: 'call me' }, 'phone_number', 'Please enter a valid phone number'],
    [{ phone_number: '123' }, 'phone_number', 'Please enter a valid phone number'],
    [{ business_location: 'x'.repeat(256) }, 'business_location', 'Business location must be at most 255 characters'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/account-info', { token: owner.token, body: patch });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('lets everyone read, only owner and Admin role write, per account', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const body = { website_url: 'example.org', phone_number: '', business_location: 'Paris' };
    expect((await call(t.app, 'GET', '/api/vms/account-info')).status).toBe(401);
    expect((await call(t.app, 'POST', '/api/vms/account-info', { token: agent.token, body })).status).toBe(403);
    expect((await call(t.app, 'POST', '/api/vms/account-info', { token: admin.token, body })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/account-info', { token: agent.token })).body.data).toEqual(body);
    expect((await call(t.app, 'GET', '/api/vms/account-info', { token: other.token })).body.data.business_location).toBe('');
  });
});

describe('OpenAPI', () => {
  it('documents the settings routes, multipart ones included', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    for (const p of ['/api/vms/widget-settings', '/api/vms/chatwidget-settings', '/api/vms/greetings', '/api/vms/account-info']) {
      expect(res.body.paths[p]).toBeDefined();
    }
  });
});
