import { type SQL, and, asc, desc, eq, inArray, sql, sum } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type AssignableUserPage, type AssigneeOptionDto, TEAM_ASSIGNED_PREVIEW, type TeamMemberListDto, addMemberSchema, assignUsersSchema, memberStatusSchema } from '@parley/shared';
import { addTeamMember } from '../../commands/addTeamMember.js';
import { assignUsers } from '../../commands/assignUsers.js';
import { deleteTeamMember } from '../../commands/deleteTeamMember.js';
import { type Db, rowsOf } from '../../db/client.js';
import { conversationCounts, conversations, roles, users, visitors } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize, can } from '../../policies/index.js';
import { visibleConversations } from '../../policies/conversations.js';
import { SPEC_CAP, decodeKey, pageOf, pageQuery } from '../../presenters/page.js';
import { presentAssignableUser, presentTeamMember, type AssignedVisitorRow } from '../../presenters/teamMember.js';
import { searchWords } from '../conversations/search.js';
import { audit } from '../../services/audit.js';
import { assignableUserPageSchema, assigneeOptionDtoSchema, okSchema, successSchema, teamMemberListDtoSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const memberParams = z.object({ id: z.string() });

/** A member id from the path; anything that is not a positive PostgreSQL integer is simply not found. */
function parseMemberId(raw: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id > 2_147_483_647) throw notFound();
  return id;
}

/**
 * The account's team members (optionally one), each with a preview of the website users assigned
 * to them (the newest TEAM_ASSIGNED_PREVIEW, index conversations_assignee_created_idx) and their
 * count (conversation_counts): never every assigned conversation (issue 16).
 */
async function loadMembers(db: Db, actor: Actor, onlyId?: number): Promise<TeamMemberListDto[]> {
  const inAccount = and(eq(users.accountId, actor.accountId), eq(users.type, 'team_member'));
  const members = await db
    .select({ id: users.id, name: users.name, email: users.email, roleId: users.roleId, roleName: roles.name, status: users.status })
    .from(users)
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(onlyId === undefined ? inAccount : and(inAccount, eq(users.id, onlyId)))
    .orderBy(asc(users.id));
  if (members.length === 0) return [];
  const ids = members.map((m) => m.id);

  const [preview, counts] = await Promise.all([
    db.execute<{ assignee_id: number; visitor_id: string; name: string }>(sql`
      select m.id as assignee_id, x.visitor_id, x.name
      from unnest(${sql.raw(`ARRAY[${ids.join(',')}]`)}::int[]) as m(id)
      cross join lateral (
        select ${conversations.visitorId} as visitor_id, ${visitors.name} as name
        from ${conversations} join ${visitors} on ${visitors.id} = ${conversations.visitorId}
        where ${conversations.assigneeId} = m.id and ${conversations.accountId} = ${actor.accountId}
        order by ${conversations.createdAt} desc, ${conversations.id} desc
        limit ${TEAM_ASSIGNED_PREVIEW}
      ) x`),
    db
      .select({ key: conversationCounts.assigneeKey, n: sum(conversationCounts.n).mapWith(Number) })
      .from(conversationCounts)
      .where(and(eq(conversationCounts.accountId, actor.accountId), inArray(conversationCounts.assigneeKey, ids)))
      .groupBy(conversationCounts.assigneeKey),
  ]);
  const byMember = new Map<number, AssignedVisitorRow[]>();
  for (const row of rowsOf<{ assignee_id: number; visitor_id: string; name: string }>(preview)) {
    const key = Number(row.assignee_id);
    const list = byMember.get(key) ?? [];
    list.push({ visitorId: row.visitor_id, visitorName: row.name });
    byMember.set(key, list);
  }
  const countOf = new Map(counts.map((c) => [c.key, c.n]));
  return members.map((m) => ({ ...presentTeamMember(m, byMember.get(m.id) ?? []), assigned_count: countOf.get(m.id) ?? 0 }));
}

async function loadMember(db: Db, actor: Actor, id: number): Promise<TeamMemberListDto> {
  const [member] = await loadMembers(db, actor, id);
  if (!member) throw notFound();
  return member;
}

const usersQuery = pageQuery.extend({
  /** Visitor name or email words (prefixes), like the visitors list. */
  q: z.string({ error: 'q must be text' }).max(200, { error: 'q must be at most 200 characters' }).optional(),
});

/** A tsquery text matching every word as a prefix, as routes/conversations/search.ts builds it. */
const tsQueryOf = (words: string[]) => words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(' & ');

/**
 * Website users (visitors with a conversation), newest conversation first, keyset-paged; only one
 * member's with `memberId`. Without `limit` (the SPEC call of /users) the newest SPEC_CAP.
 */
async function assignableUsers(db: Db, actor: Actor, q: z.output<typeof usersQuery>, memberId: number | undefined): Promise<AssignableUserPage> {
  const limit = q.limit ?? SPEC_CAP;
  const words = q.q === undefined ? [] : searchWords(q.q);
  const filters: (SQL | undefined)[] = [visibleConversations(actor)];
  if (memberId !== undefined) filters.push(eq(conversations.assigneeId, memberId));
  if (words.length > 0) filters.push(sql`to_tsvector('simple'::regconfig, ${visitors.name} || ' ' || ${visitors.email}) @@ to_tsquery('simple'::regconfig, ${tsQueryOf(words)})`);
  let after: SQL | undefined;
  if (q.cursor !== undefined) {
    const [at, id] = decodeKey(q.cursor, 'tn');
    after = sql`(${conversations.createdAt}, ${conversations.id}) < (${at}::timestamptz, ${id}::int)`;
  }
  const rows = await db
    .select({ visitorId: visitors.id, visitorName: visitors.name, key: sql<string>`${conversations.createdAt}::text`, id: conversations.id })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .where(and(...filters, after))
    .orderBy(desc(conversations.createdAt), desc(conversations.id))
    .limit(limit + 1);
  const page = pageOf(rows, limit, (r) => [r.key, r.id]);
  let total: number;
  if (words.length === 0 && can(actor, 'conversations.readAll')) {
    // The counters of 0017: a handful of rows, whatever the tenant's size.
    const [row] = await db
      .select({ n: sum(conversationCounts.n).mapWith(Number) })
      .from(conversationCounts)
      .where(and(eq(conversationCounts.accountId, actor.accountId), memberId === undefined ? undefined : eq(conversationCounts.assigneeKey, memberId)));
    total = row?.n ?? 0;
  } else {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(conversations)
      .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
      .where(and(...filters));
    total = row?.n ?? 0;
  }
  return { message: 'success', data: page.rows.map(presentAssignableUser), next_cursor: page.nextCursor, has_more: page.hasMore, total };
}

/** Team management: owner only (PRODUCT.md section 2); every query is scoped to the owner's account. */
export default async function teamRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ownerOnly = async (request: { actor: Actor }) => authorize(request.actor, 'team.manage');
  // onRequest, not preHandler: a stranger or a member gets 401/403 before any body is parsed or validated.
  const onRequest = [authenticate, ownerOnly];

  // Who a conversation may be assigned to: owner and Admins (PRODUCT.md section 2, "assign a
  // conversation to anyone"); the fields the picker needs, not the team screen's.
  app.get(
    '/team/members',
    {
      schema: { response: { 200: okSchema(z.array(assigneeOptionDtoSchema)) }, tags: ['team'], summary: 'Members a conversation may be assigned to (owner and Admins)', ...secured },
      onRequest: [authenticate, async (request: { actor: Actor }) => authorize(request.actor, 'conversations.assignAny')],
    },
    async (request) => {
      const rows = await app.db
        .select({ id: users.id, name: users.name, role: roles.name, status: users.status, type: users.type })
        .from(users)
        .leftJoin(roles, eq(roles.id, users.roleId))
        .where(eq(users.accountId, request.actor.accountId))
        .orderBy(asc(users.id))
        .limit(SPEC_CAP);
      const data: AssigneeOptionDto[] = rows.map((r) => ({ id: r.id, name: r.name, role: r.type === 'owner' ? 'Owner' : (r.role ?? ''), status: r.status }));
      return { message: 'success', data };
    },
  );

  app.get('/team', { schema: { response: { 200: okSchema(z.array(teamMemberListDtoSchema)).extend({ roles: z.array(z.object({ id: z.number(), name: z.string() })) }) }, tags: ['team'], ...secured }, onRequest }, async (request) => {
    const [data, roleRows] = await Promise.all([
      loadMembers(app.db, request.actor),
      app.db.select({ id: roles.id, name: roles.name }).from(roles).orderBy(asc(roles.id)),
    ]);
    return { message: 'success', data, roles: roleRows };
  });

  // The website's users: visitors who have a conversation, newest conversation first (paged, issue 16).
  app.get('/users', { schema: { response: { 200: assignableUserPageSchema }, tags: ['team'], querystring: usersQuery, ...secured }, onRequest }, async (request) =>
    assignableUsers(app.db, request.actor, request.query, undefined),
  );

  // One member's assigned website users in full, paged (the Team dialog loads them all when opened).
  app.get(
    '/team/:id/assignments',
    { schema: { response: { 200: assignableUserPageSchema }, tags: ['team'], params: memberParams, querystring: usersQuery, ...secured }, onRequest },
    async (request) => {
      const id = parseMemberId(request.params.id);
      const [member] = await app.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.id, id), eq(users.accountId, request.actor.accountId), eq(users.type, 'team_member')));
      if (!member) throw notFound();
      return assignableUsers(app.db, request.actor, request.query, id);
    },
  );

  app.post('/team', { schema: { response: { 201: okSchema(teamMemberListDtoSchema) }, tags: ['team'], body: addMemberSchema, ...secured }, onRequest }, async (request, reply) => {
    const { name, email, password, role_id } = request.body;
    const { id } = await addTeamMember(app.db, { accountId: request.actor.accountId, name, email, password, roleId: role_id });
    await audit(request, 'member.added', `user:${id}`, { email, role_id });
    return reply.status(201).send({ message: 'success', data: await loadMember(app.db, request.actor, id) });
  });

  app.delete('/team/:id', { schema: { response: { 200: successSchema }, tags: ['team'], params: memberParams, ...secured }, onRequest }, async (request) => {
    const id = parseMemberId(request.params.id);
    const { deleted, unassigned } = await deleteTeamMember(app.db, request.actor.accountId, id);
    if (!deleted) throw notFound();
    await audit(request, 'member.deleted', `user:${id}`);
    await app.events.emit('sessions.revoked', { userId: id });
    await app.events.emit('conversations.assigned', { accountId: request.actor.accountId, conversationIds: unassigned });
    return { message: 'success' };
  });

  // Not in SPEC.md's screens: the owner sets a member's status through the API (PRODUCT.md section 2).
  app.patch(
    '/team/:id',
    { schema: { response: { 200: okSchema(teamMemberListDtoSchema) }, tags: ['team'], params: memberParams, body: memberStatusSchema, ...secured }, onRequest },
    async (request) => {
      const id = parseMemberId(request.params.id);
      const { status } = request.body;
      const { accountId } = request.actor;
      const [before] = await app.db
        .select({ status: users.status })
        .from(users)
        .where(and(eq(users.id, id), eq(users.accountId, accountId), eq(users.type, 'team_member')));
      if (!before) throw notFound();
      if (before.status !== status) {
        await app.db.update(users).set({ status }).where(and(eq(users.id, id), eq(users.accountId, accountId)));
        await app.events.emit('user.statusChanged', { accountId, userId: id, status });
        await audit(request, 'member.updated', `user:${id}`, { status });
      }
      return { message: 'success', data: await loadMember(app.db, request.actor, id) };
    },
  );

  app.post(
    '/team/:id/assign',
    { schema: { response: { 200: okSchema(teamMemberListDtoSchema) }, tags: ['team'], params: memberParams, body: assignUsersSchema, ...secured }, onRequest },
    async (request) => {
      const id = parseMemberId(request.params.id);
      // Each change writes its system line and pushes like the header's assign (commands/assignUsers.ts).
      await assignUsers(app, request.actor, id, request.body.user_ids);
      await audit(request, 'member.assigned', `user:${id}`, { users: request.body.user_ids.length });
      return { message: 'success', data: await loadMember(app.db, request.actor, id) };
    },
  );
}
