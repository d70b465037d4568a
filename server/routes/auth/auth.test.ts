import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const valid = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'Password1!', password_confirmation: 'Password1!' };

describe('POST /api/vms/register', () => {
  it('creates the account and owner, and answers token + user', async () => {
    const res = await call(t.app, 'POST', '/api/vms/register', { body: valid });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.user).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', is_admin: true, type: 'owner', status: 'active' });
    const me = await call(t.app, 'GET', '/api/vms/user', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('ada@example.com');
  });

  it.each([
    [{ name: '' }, 'name', 'Name is required'],
    [{ name: '   ' }, 'name', 'Name is required'],
    [{ name: 'A' }, 'name', 'Name must be at least 2 characters'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'not-an-email' }, 'email', 'Please enter a valid email address'],
    [{ password: '', password_confirmation: '' }, 'password', 'Password is required'],
    [{ password: 'short', password_confirmation: 'short' }, 'password', 'Password must be at least 8 characters'],
    [{ password_confirmation: '' }, 'password_confirmation', 'Please confirm your password'],
    [{ password_confirmation: 'Password2!' }, 'password_confirmation', 'Passwords do not match'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const res = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, email: 'x@example.com', ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect(res.body.message).toBe(message);
    expect(res.body.error).toBe(message);
  });

  it('reports every field at once, the password mismatch included', async () => {
    const body = { name: 'A', email: 'not-an-email', password: 'short', password_confirmation: 'other' };
    const res = await call(t.app, 'POST', '/api/vms/register', { body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      name: ['Name must be at least 2 characters'],
      email: ['Please enter a valid email address'],
      password: ['Password must be at least 8 characters'],
      password_confirmation: ['Passwords do not match'],
    });
  });

  it('refuses a taken email, whatever its case, with 409 and a field error', async () => {
    await buildAccount(t.app, { email: 'taken@example.com' });
    const res = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, email: 'TAKEN@example.com' } });
    expect(res.status).toBe(409);
    expect(res.body.errors.email).toEqual(['The email has already been taken.']);
  });

  it('answers malformed JSON with 400 in the envelope', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/vms/register', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: 'The request body is not valid JSON', error: 'The request body is not valid JSON' });
  });
});

describe('POST /api/vms/login and logout', () => {
  it('signs in with any email case, and logout revokes the token', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email.toUpperCase(), password: owner.password } });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(owner.email);
    const out = await call(t.app, 'POST', '/api/vms/logout', { token: res.body.token });
    expect(out.status).toBe(200);
    const after = await call(t.app, 'GET', '/api/vms/user', { token: res.body.token });
    expect(after.status).toBe(401);
    // The other session is untouched.
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);
  });

  it.each([
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'nope' }, 'email', 'Email is invalid'],
    [{ password: '' }, 'password', 'Password is required'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const res = await call(t.app, 'POST', '/api/vms/login', { body: { email: 'a@example.com', password: 'x', ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('answers a wrong password or unknown email with the same 401', async () => {
    const owner = await buildAccount(t.app);
    const wrong = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: 'wrong-password' } });
    const unknown = await call(t.app, 'POST', '/api/vms/login', { body: { email: 'ghost@example.com', password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('needs a token: missing -> "No authentication token found", bad -> 401', async () => {
    const none = await call(t.app, 'GET', '/api/vms/user');
    expect(none.status).toBe(401);
    expect(none.body.message).toBe('No authentication token found');
    const bad = await call(t.app, 'GET', '/api/vms/user', { token: 'forged' });
    expect(bad.status).toBe(401);
  });
});

describe('throttling', () => {
  it('answers 429 in the envelope after too many failed logins for one email', async () => {
    const limited = await createTestApp({ LOGIN_LIMIT_PER_EMAIL: '3' });
    try {
      const owner = await buildAccount(limited.app);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await call(limited.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: 'bad-password' } })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const ok = await call(limited.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password } });
      expect(ok.status).toBe(429);
      expect(ok.body.message).toBe('Too many attempts. Please try again later.');
    } finally {
      await limited.close();
    }
  });

  it('answers 429 after too many registrations from one IP', async () => {
    const limited = await createTestApp({ REGISTER_LIMIT_PER_IP: '2' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const body = { ...valid, email: `r${i}@example.com` };
        statuses.push((await call(limited.app, 'POST', '/api/vms/register', { body })).status);
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('profile, password, delete', () => {
  it('updates the profile; an email another user has changes nothing and is not revealed', async () => {
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    const res = await call(t.app, 'PUT', '/api/vms/user/update', { token: a.token, body: { name: 'New Name', email: a.email } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect((await call(t.app, 'GET', '/api/vms/user', { token: a.token })).body.name).toBe('New Name');
    const clash = await call(t.app, 'PUT', '/api/vms/user/update', { token: a.token, body: { name: 'X y', email: b.email } });
    expect(clash.status).toBe(200);
    expect(clash.body.pending_email).toBe(b.email);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: a.token })).body.email).toBe(a.email);
    const invalid = await call(t.app, 'PUT', '/api/vms/user/update', { token: a.token, body: { name: '', email: 'bad' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ name: ['Name is required'], email: ['Please enter a valid email address'] });
  });

  it('changes the password, revoking the other sessions, and checks the current one', async () => {
    const a = await buildAccount(t.app);
    const other = (await call(t.app, 'POST', '/api/vms/login', { body: { email: a.email, password: a.password } })).body.token;
    const wrong = await call(t.app, 'PUT', '/api/vms/password/update', { token: a.token, body: { current: 'nope', new: 'abcdef', confirm: 'abcdef' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.current).toEqual(['The current password is incorrect']);
    const mismatch = await call(t.app, 'PUT', '/api/vms/password/update', { token: a.token, body: { current: a.password, new: 'abcdef', confirm: 'abcdeg' } });
    expect(mismatch.body.errors.confirm).toEqual(['New passwords do not match']);
    const both = await call(t.app, 'PUT', '/api/vms/password/update', { token: a.token, body: { current: '', new: 'abc', confirm: 'abd' } });
    expect(both.body.errors).toEqual({
      current: ['Current password is required'],
      new: ['New password must be at least 6 characters'],
      confirm: ['New passwords do not match'],
    });
    const short = await call(t.app, 'PUT', '/api/vms/password/update', { token: a.token, body: { current: a.password, new: 'abc', confirm: 'abc' } });
    expect(short.body.errors.new).toEqual(['New password must be at least 6 characters']);
    const ok = await call(t.app, 'PUT', '/api/vms/password/update', { token: a.token, body: { current: a.password, new: 'n3w-pass', confirm: 'n3w-pass' } });
    expect(ok.status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: other })).status).toBe(401);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: a.token })).status).toBe(200);
    expect((await call(t.app, 'POST', '/api/vms/login', { body: { email: a.email, password: 'n3w-pass' } })).status).toBe(200);
  });

  it('deletes the account and everything in it; the token stops working', async () => {
    const a = await buildAccount(t.app);
    const res = await call(t.app, 'DELETE', '/api/vms/user/delete', { token: a.token });
    expect(res.status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: a.token })).status).toBe(401);
    expect((await call(t.app, 'POST', '/api/vms/login', { body: { email: a.email, password: a.password } })).status).toBe(401);
  });
});

describe('bad bodies', () => {
  it('refuses a body that is not UTF-8, and NUL characters, with 400 and stores nothing', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"Ren'), Buffer.from([0xe9]), Buffer.from('e","email":"l1@example.com","password":"Password1!","password_confirmation":"Password1!"}')]);
    const res = await t.app.inject({ method: 'POST', url: '/api/vms/register', headers: { 'content-type': 'application/json' }, payload: latin1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('The request body is not valid UTF-8');
    const nul = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, name: 'Nu\u0000ll', email: 'nul@example.com' } });
    expect(nul.status).toBe(400);
    expect((await call(t.app, 'POST', '/api/vms/login', { body: { email: 'l1@example.com', password: 'Password1!' } })).status).toBe(401);
    expect((await call(t.app, 'POST', '/api/vms/login', { body: { email: 'nul@example.com', password: 'Password1!' } })).status).toBe(401);
  });

  it('stores SQL and HTML exactly as sent', async () => {
    const name = `Robert'); DROP TABLE users;-- <script>alert(1)</script>`;
    const res = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, name, email: 'bobby@example.com' } });
    expect(res.status).toBe(201);
    expect((await call(t.app, 'GET', '/api/vms/user', { token: res.body.token })).body.name).toBe(name);
  });

  it('refuses an oversized body with 413', async () => {
    const res = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('The request body is too large');
  });

  it('refuses a very long name with 422', async () => {
    const res = await call(t.app, 'POST', '/api/vms/register', { body: { ...valid, name: 'x'.repeat(300), email: 'long@example.com' } });
    expect(res.status).toBe(422);
  });
});
