import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations, users, visitors } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildChattingVisitor, pngPart, postForm } from '../../test/chatFactories.js';
import { buildAccount, buildMember, call, insertVisitorWithConversation, type TestOwner } from '../../test/factories.js';

let t: TestApp;
let roleIds: { Admin: number; Agent: number };
beforeAll(async () => {
  t = await createTestApp();
  const owner = await buildAccount(t.app);
  const res = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
  const byName = new Map<string, number>(res.body.roles.map((r: { id: number; name: string }) => [r.name, r.id]));
  roleIds = { Admin: byName.get('Admin')!, Agent: byName.get('Agent')! };
});
afterAll(() => t.close());

let seq = 0;
const newMember = (role: 'Admin' | 'Agent' = 'Agent') => ({
  name: 'Nora Member',
  email: `nora-${Date.now()}-${seq++}@example.com`,
  password: 'secret1',
  role_id: roleIds[role],
});

const assigneeOf = async (conversationId: number) => {
  const [row] = await t.database.db
    .select({ assigneeId: conversations.assigneeId })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  return row?.assigneeId;
};

async function addMember(owner: TestOwner, role: 'Admin' | 'Agent' = 'Agent') {
  const body = newMember(role);
  const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body });
  expect(res.status).toBe(201);
  return { ...body, id: res.body.data.id as number };
}

describe('GET /api/vms/team', () => {
  it("lists the account's members in id order with role and assigned users, and the roles", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    await buildMember(t.app, other, 'Agent');
    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Alan Agent' });
    const admin = await buildMember(t.app, owner, 'Admin', { name: 'Ada Admin' });
    const v1 = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Vic', assigneeId: agent.id });
    const v2 = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: '', assigneeId: agent.id });
    await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Nobody' });

    const res = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.roles).toEqual([
      { id: roleIds.Admin, name: 'Admin' },
      { id: roleIds.Agent, name: 'Agent' },
    ]);
    expect(res.body.data).toEqual([
      {
        id: agent.id,
        name: 'Alan Agent',
        email: agent.email,
        role: { id: roleIds.Agent, name: 'Agent' },
        status: 'active',
        // Newest conversation first; a nameless visitor is 'Anonymous'.
        assigned_users: [
          { id: v2.visitorId, name: 'Anonymous' },
          { id: v1.visitorId, name: 'Vic' },
        ],
        assigned_count: 2,
      },
      { id: admin.id, name: 'Ada Admin', email: admin.email, role: { id: roleIds.Admin, name: 'Admin' }, status: 'active', assigned_users: [], assigned_count: 0 },
    ]);
  });

  it('answers an empty list for an account without members', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    expect(res.body.data).toEqual([]);
  });
});

describe('GET /api/vms/users', () => {
  it("lists the account's visitors who have a conversation, newest first, 'Anonymous' when nameless", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    await insertVisitorWithConversation(t.app, other.user.account_id, { name: 'Elsewhere' });
    const first = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'First' });
    const second = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: '  ' });
    // A visitor who never wrote has no conversation: not a "user" of the website yet.
    await t.database.db.insert(visitors).values({ accountId: owner.user.account_id, tokenHash: hashToken(newToken()), name: 'Silent' });

    const res = await call(t.app, 'GET', '/api/vms/users', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      data: [
        { id: second.visitorId, name: 'Anonymous' },
        { id: first.visitorId, name: 'First' },
      ],
      // Additions of issue 16 (paging).
      next_cursor: null,
      has_more: false,
      total: 2,
    });
  });
});

describe('POST /api/vms/team', () => {
  it('creates a team member who can then sign in', async () => {
    const owner = await buildAccount(t.app);
    const body = { ...newMember('Admin'), name: '  <b>Bobby</b> Tables\'; --  ' };
    const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'success',
      data: { id: expect.any(Number), name: "<b>Bobby</b> Tables'; --", email: body.email, role: { id: roleIds.Admin, name: 'Admin' }, status: 'active', assigned_users: [], assigned_count: 0 },
    });

    const [row] = await t.database.db.select().from(users).where(eq(users.id, res.body.data.id));
    expect(row).toMatchObject({ accountId: owner.user.account_id, type: 'team_member', isAdmin: false, roleId: roleIds.Admin });
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);

    const login = await call(t.app, 'POST', '/api/vms/login', { body: { email: body.email.toUpperCase(), password: body.password } });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: body.email, is_admin: false, type: 'team_member', role: 'Admin', account_id: owner.user.account_id });
    expect((await call(t.app, 'GET', '/api/vms/team', { token: owner.token })).body.data).toHaveLength(1);
  });

  it.each([
    [{ name: '' }, 'name', 'Name is required'],
    [{ name: '   ' }, 'name', 'Name is required'],
    [{ name: undefined }, 'name', 'Name is required'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'not-an-email' }, 'email', 'Please enter a valid email address'],
    [{ email: `${'a'.repeat(300)}@example.com` }, 'email', 'Please enter a valid email address'],
    [{ password: '' }, 'password', 'Password is required'],
    [{ password: 'abcde' }, 'password', 'Password must be at least 6 characters'],
    [{ role_id: '' }, 'role_id', 'Role is required'],
    [{ role_id: undefined }, 'role_id', 'Role is required'],
    [{ role_id: 'admin' }, 'role_id', 'Role is required'],
    [{ role_id: 1.5 }, 'role_id', 'Role is required'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body: { ...newMember(), ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect(res.body.message).toBe(message);
    expect((await call(t.app, 'GET', '/api/vms/team', { token: owner.token })).body.data).toEqual([]);
  });

  it('refuses a huge name with 422', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body: { ...newMember(), name: 'x'.repeat(10_000) } });
    expect(res.status).toBe(422);
    expect(res.body.errors.name).toBeDefined();
  });

  it.each([9999, 3_000_000_000])('refuses an unknown role %s with 422', async (roleId) => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body: { ...newMember(), role_id: roleId } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ role_id: ['The selected role is invalid'] });
  });

  it("refuses a taken email, whatever its case, including an owner's, with 409", async () => {
    const owner = await buildAccount(t.app);
    const otherOwner = await buildAccount(t.app);
    const existing = await addMember(owner);
    for (const email of [existing.email.toUpperCase(), owner.email, otherOwner.email.toUpperCase()]) {
      const res = await call(t.app, 'POST', '/api/vms/team', { token: owner.token, body: { ...newMember(), email } });
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ email: ['The email has already been taken.'] });
      expect(res.body.message).toBe('The email has already been taken.');
    }
    expect((await call(t.app, 'GET', '/api/vms/team', { token: owner.token })).body.data).toHaveLength(1);
  });
});

describe('DELETE /api/vms/team/:id', () => {
  it('deletes the member, unassigns their conversations and revokes their sessions', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const keep = await buildMember(t.app, owner, 'Agent');
    const mine = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: member.id });
    const theirs = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: keep.id });

    const res = await call(t.app, 'DELETE', `/api/vms/team/${member.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success' });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: member.token })).status).toBe(401);
    expect(await assigneeOf(mine.conversationId)).toBeNull();
    expect(await assigneeOf(theirs.conversationId)).toBe(keep.id);
    const list = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    expect(list.body.data.map((m: { id: number }) => m.id)).toEqual([keep.id]);
    expect((await call(t.app, 'DELETE', `/api/vms/team/${member.id}`, { token: owner.token })).status).toBe(404);
  });

  it("answers 404 for another account's member and leaves them untouched", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const stranger = await buildMember(t.app, other, 'Agent');
    const conv = await insertVisitorWithConversation(t.app, other.user.account_id, { assigneeId: stranger.id });
    const res = await call(t.app, 'DELETE', `/api/vms/team/${stranger.id}`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Not found', error: 'Not found' });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: stranger.token })).status).toBe(200);
    expect(await assigneeOf(conv.conversationId)).toBe(stranger.id);
  });

  it('answers 404 for the owner themselves, and for unknown or malformed ids', async () => {
    const owner = await buildAccount(t.app);
    for (const id of [String(owner.user.id), '999999', 'abc', '1.5', '-1', '0', '99999999999', "1' OR '1'='1", '%20']) {
      const res = await call(t.app, 'DELETE', `/api/vms/team/${encodeURIComponent(id)}`, { token: owner.token });
      expect(res.status, id).toBe(404);
    }
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).status).toBe(200);
  });
});

describe('POST /api/vms/team/:id/assign', () => {
  it('assigns exactly the given users, replacing the previous set', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const other = await buildMember(t.app, owner, 'Agent');
    const a = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Amy' });
    const b = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Ben', assigneeId: other.id });
    const c = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Cat' });
    const url = `/api/vms/team/${member.id}/assign`;

    const first = await call(t.app, 'POST', url, { token: owner.token, body: { user_ids: [a.visitorId, b.visitorId, a.visitorId] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: 'success',
      data: {
        id: member.id,
        name: 'Agent Member',
        email: member.email,
        role: { id: roleIds.Agent, name: 'Agent' },
        status: 'active',
        assigned_users: [
          { id: b.visitorId, name: 'Ben' },
          { id: a.visitorId, name: 'Amy' },
        ],
        assigned_count: 2,
      },
    });
    // Ben's conversation moved from the other member to this one.
    expect(await assigneeOf(b.conversationId)).toBe(member.id);

    const second = await call(t.app, 'POST', url, { token: owner.token, body: { user_ids: [c.visitorId.toUpperCase()] } });
    expect(second.status).toBe(200);
    expect(second.body.data.assigned_users).toEqual([{ id: c.visitorId, name: 'Cat' }]);
    expect(await assigneeOf(a.conversationId)).toBeNull();
    expect(await assigneeOf(b.conversationId)).toBeNull();
    expect(await assigneeOf(c.conversationId)).toBe(member.id);

    const cleared = await call(t.app, 'POST', url, { token: owner.token, body: { user_ids: [] } });
    expect(cleared.body.data.assigned_users).toEqual([]);
    expect(await assigneeOf(c.conversationId)).toBeNull();
  });

  it("refuses another account's visitor, an unknown or malformed id with 422 and changes nothing", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const mine = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: member.id });
    const fresh = await insertVisitorWithConversation(t.app, owner.user.account_id);
    const foreign = await insertVisitorWithConversation(t.app, other.user.account_id);
    const bad = [foreign.visitorId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', "' OR 1=1 --", ''];
    for (const id of bad) {
      const res = await call(t.app, 'POST', `/api/vms/team/${member.id}/assign`, {
        token: owner.token,
        body: { user_ids: [fresh.visitorId, id] },
      });
      expect(res.status, id).toBe(422);
      expect(res.body.errors).toEqual({ user_ids: ['One or more users were not found'] });
    }
    expect(await assigneeOf(mine.conversationId)).toBe(member.id);
    expect(await assigneeOf(fresh.conversationId)).toBeNull();
    expect(await assigneeOf(foreign.conversationId)).toBeNull();
  });

  it.each([{}, { user_ids: 'abc' }, { user_ids: [1, 2] }, { user_ids: ['x'.repeat(100)] }])('refuses the payload %o with 422', async (body) => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const res = await call(t.app, 'POST', `/api/vms/team/${member.id}/assign`, { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors.user_ids ?? res.body.errors['user_ids.0']).toBeDefined();
  });

  it("answers 404 for another account's member, the owner, unknown and malformed ids, and changes nothing", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const stranger = await buildMember(t.app, other, 'Agent');
    const theirs = await insertVisitorWithConversation(t.app, other.user.account_id, { assigneeId: stranger.id });
    const mine = await insertVisitorWithConversation(t.app, owner.user.account_id);
    for (const id of [String(stranger.id), String(owner.user.id), '999999', 'abc', '99999999999']) {
      const res = await call(t.app, 'POST', `/api/vms/team/${id}/assign`, { token: owner.token, body: { user_ids: [mine.visitorId] } });
      expect(res.status, id).toBe(404);
    }
    // Even with an empty list (which would unassign everything) the stranger keeps their conversation.
    expect((await call(t.app, 'POST', `/api/vms/team/${stranger.id}/assign`, { token: owner.token, body: { user_ids: [] } })).status).toBe(404);
    expect(await assigneeOf(theirs.conversationId)).toBe(stranger.id);
    expect(await assigneeOf(mine.conversationId)).toBeNull();
  });
});

describe('PATCH /api/vms/team/:id', () => {
  it("sets a member's status: disabled may not attach images, active again may; the list shows it", async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const disable = await call(t.app, 'PATCH', `/api/vms/team/${member.id}`, { token: owner.token, body: { status: 'disabled' } });
    expect(disable.status).toBe(200);
    expect(disable.body).toMatchObject({ message: 'success', data: { id: member.id, status: 'disabled', role: { name: 'Agent' } } });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: member.token })).body.status).toBe('disabled');
    expect((await postForm(t.app, '/api/vms/messages', member.token, { visitor_id: v.id, message: 'see' }, pngPart())).status).toBe(403);

    const enable = await call(t.app, 'PATCH', `/api/vms/team/${member.id}`, { token: owner.token, body: { status: 'active' } });
    expect(enable.body.data.status).toBe('active');
    expect((await postForm(t.app, '/api/vms/messages', member.token, { visitor_id: v.id, message: 'see' }, pngPart())).status).toBe(201);
    const team = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    expect(team.body.data.map((m: { status: string }) => m.status)).toEqual(['active']);
  });

  it('refuses a missing or unknown status with 422 and changes nothing', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    for (const body of [{}, { status: 'banned' }, { status: 1 }]) {
      const res = await call(t.app, 'PATCH', `/api/vms/team/${member.id}`, { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.status).toEqual(["Status must be 'active' or 'disabled'"]);
    }
    const [row] = await t.database.db.select({ status: users.status }).from(users).where(eq(users.id, member.id));
    expect(row?.status).toBe('active');
  });

  it("answers 404 for another account's member, the owner themselves, unknown and malformed ids", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const foreign = await buildMember(t.app, other, 'Agent');
    for (const id of [foreign.id, owner.user.id, 2_000_000_000, 'abc', '-1']) {
      const res = await call(t.app, 'PATCH', `/api/vms/team/${id}`, { token: owner.token, body: { status: 'disabled' } });
      expect(res.status, String(id)).toBe(404);
    }
    const rows = await t.database.db.select({ status: users.status }).from(users).where(eq(users.id, foreign.id));
    expect(rows[0]?.status).toBe('active');
    expect((await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).body.status).toBe('active');
  });
});

describe('who may manage the team', () => {
  const endpoints = (memberId: number, visitorId: string): [string, string, unknown][] => [
    ['GET', '/api/vms/team', undefined],
    ['GET', '/api/vms/users', undefined],
    ['GET', `/api/vms/team/${memberId}/assignments`, undefined],
    ['POST', '/api/vms/team', newMember()],
    ['POST', '/api/vms/team', {}],
    ['DELETE', `/api/vms/team/${memberId}`, undefined],
    ['POST', `/api/vms/team/${memberId}/assign`, { user_ids: [visitorId] }],
    ['POST', `/api/vms/team/${memberId}/assign`, { user_ids: 'bad' }],
    ['PATCH', `/api/vms/team/${memberId}`, { status: 'disabled' }],
  ];

  it('answers 401 without a token or with a revoked one, on every endpoint', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const v = await insertVisitorWithConversation(t.app, owner.user.account_id);
    for (const [method, url, body] of endpoints(member.id, v.visitorId)) {
      const none = await call(t.app, method as 'GET', url, { body });
      expect(none.status, `${method} ${url}`).toBe(401);
      expect(none.body.message).toBe('No authentication token found');
      expect((await call(t.app, method as 'GET', url, { token: 'forged', body })).status).toBe(401);
    }
    expect((await call(t.app, 'GET', '/api/vms/user', { token: member.token })).status).toBe(200);
  });

  it.each(['Admin', 'Agent'] as const)('answers 403 to a member with the %s role on every endpoint, changing nothing', async (role) => {
    const owner = await buildAccount(t.app);
    const caller = await buildMember(t.app, owner, role);
    const target = await buildMember(t.app, owner, 'Agent');
    const v = await insertVisitorWithConversation(t.app, owner.user.account_id);
    for (const [method, url, body] of [...endpoints(target.id, v.visitorId), ...endpoints(caller.id, v.visitorId)]) {
      const res = await call(t.app, method as 'GET', url, { token: caller.token, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message).toBe('You do not have permission to do this');
    }
    const team = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    expect(team.body.data.map((m: { id: number }) => m.id)).toEqual([caller.id, target.id]);
    expect(await assigneeOf(v.conversationId)).toBeNull();
  });
});
