import type { FastifyInstance, InjectOptions } from 'fastify';
import { eq, inArray } from 'drizzle-orm';
import type { AuthResponse, UserDto } from '@parley/shared';
import { issueToken } from '../commands/issueToken.js';
import { authTokens, conversations, messages, roles, users, visitors } from '../db/schema.js';
import { forgetPresence } from '../services/presence.js';
import { hashPassword, hashToken, newToken } from '../services/secrets.js';

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** app.inject with a token and JSON payload; returns status and parsed body. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const res = await app.inject({
    method,
    url,
    headers: { ...(opts.token ? bearer(opts.token) : {}), ...opts.headers },
    ...(opts.body !== undefined ? { payload: opts.body as InjectOptions['payload'] } : {}),
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

export interface TestOwner {
  token: string;
  user: UserDto;
  email: string;
  password: string;
  widgetKey: string;
}

/** Registers a new business through the real endpoint; returns the owner's session and widget key. */
export async function buildAccount(app: FastifyInstance, overrides: { name?: string; email?: string; verified?: boolean } = {}): Promise<TestOwner> {
  const email = overrides.email ?? `owner-${unique()}@example.com`;
  const password = 'Sup3r-secret!';
  const res = await call(app, 'POST', '/api/vms/register', {
    body: { name: overrides.name ?? 'Olivia Owner', email, password, password_confirmation: password },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as AuthResponse;
  // Owners verify their email through a link (issue 14); most tests start from a verified owner.
  if (overrides.verified !== false) await app.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, body.user.id));
  const [row] = await app.database.db.query.accounts.findMany({ where: (a, { eq }) => eq(a.id, body.user.account_id) });
  return { token: body.token, user: body.user, email, password, widgetKey: row!.widgetKey };
}

/**
 * A team member of the owner's account, created straight in the database (the /team endpoint
 * has its own tests); returns a signed-in session.
 */
export async function buildMember(
  app: FastifyInstance,
  owner: TestOwner,
  roleName: 'Admin' | 'Agent',
  overrides: { name?: string; email?: string; status?: 'active' | 'disabled' } = {},
): Promise<{ token: string; id: number; email: string }> {
  const db = app.database.db;
  const [role] = await db.select().from(roles).where(eq(roles.name, roleName));
  const email = overrides.email ?? `member-${unique()}@example.com`;
  const [user] = await db
    .insert(users)
    .values({
      accountId: owner.user.account_id,
      name: overrides.name ?? `${roleName} Member`,
      email,
      passwordHash: await hashPassword('member-pass'),
      type: 'team_member',
      isAdmin: false,
      roleId: role!.id,
      status: overrides.status ?? 'active',
    })
    .returning({ id: users.id });
  return { token: await issueToken(db, user!.id), id: user!.id, email };
}

/**
 * A visitor with a conversation and one visitor message, straight in the database, for tests of
 * areas that only read them (team assignment, lists). The widget endpoints have their own tests.
 */
export async function insertVisitorWithConversation(
  app: FastifyInstance,
  accountId: string,
  opts: { name?: string; email?: string; message?: string; assigneeId?: number | null } = {},
): Promise<{ visitorId: string; conversationId: number }> {
  const db = app.database.db;
  const [visitor] = await db
    .insert(visitors)
    .values({ accountId, tokenHash: hashToken(newToken()), name: opts.name ?? 'Vera Visitor', email: opts.email ?? '' })
    .returning({ id: visitors.id });
  const text = opts.message ?? 'Hello, I have a question';
  const [conversation] = await db
    .insert(conversations)
    .values({
      accountId,
      visitorId: visitor!.id,
      assigneeId: opts.assigneeId ?? null,
      lastMessage: text,
      lastMessageAt: new Date(),
      unreadCount: 1,
    })
    .returning({ id: conversations.id });
  await db.insert(messages).values({ accountId, conversationId: conversation!.id, senderType: 'visitor', message: text });
  return { visitorId: visitor!.id, conversationId: conversation!.id };
}

/**
 * Nobody of the account is online for visitors: every session last used an hour ago (tests open
 * no console socket for it), and this node forgets the presence it had cached.
 */
export async function everyoneOffline(app: FastifyInstance, account: TestOwner | string): Promise<void> {
  const accountId = typeof account === 'string' ? account : account.user.account_id;
  const ids = (await app.db.select({ id: users.id }).from(users).where(eq(users.accountId, accountId))).map((u) => u.id);
  if (ids.length) await app.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) }).where(inArray(authTokens.userId, ids));
  forgetPresence(app.db, accountId);
}
