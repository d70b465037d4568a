import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addMemberSchema, assignUsersSchema, memberStatusSchema, type TeamMemberDto } from '@parley/shared';
import { addTeamMember } from '../../commands/addTeamMember.js';
import { assignUsers } from '../../commands/assignUsers.js';
import { deleteTeamMember } from '../../commands/deleteTeamMember.js';
import type { Db } from '../../db/client.js';
import { conversations, roles, users, visitors } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { visibleConversations } from '../../policies/conversations.js';
import { presentAssignableUser, presentTeamMember, type AssignedVisitorRow } from '../../presenters/teamMember.js';
import { audit } from '../../services/audit.js';

const secured = { security: [{ bearer: [] }] };
const memberParams = z.object({ id: z.string() });

/** A member id from the path; anything that is not a positive PostgreSQL integer is simply not found. */
function parseMemberId(raw: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id > 2_147_483_647) throw notFound();
  return id;
}

/** The account's team members (optionally one), each with the website users assigned to them. */
async function loadMembers(db: Db, actor: Actor, onlyId?: number): Promise<TeamMemberDto[]> {
  const inAccount = and(eq(users.accountId, actor.accountId), eq(users.type, 'team_member'));
  const members = await db
    .select({ id: users.id, name: users.name, email: users.email, roleId: users.roleId, roleName: roles.name, status: users.status })
    .from(users)
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(onlyId === undefined ? inAccount : and(inAccount, eq(users.id, onlyId)))
    .orderBy(asc(users.id));
  if (members.length === 0) return [];

  const assigned = await db
    .select({ assigneeId: conversations.assigneeId, visitorId: visitors.id, visitorName: visitors.name })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .where(and(visibleConversations(actor), inArray(conversations.assigneeId, members.map((m) => m.id))))
    .orderBy(desc(conversations.createdAt), desc(conversations.id));
  const byMember = new Map<number, AssignedVisitorRow[]>();
  for (const row of assigned) {
    if (row.assigneeId === null) continue;
    const list = byMember.get(row.assigneeId) ?? [];
    list.push(row);
    byMember.set(row.assigneeId, list);
  }
  return members.map((m) => presentTeamMember(m, byMember.get(m.id) ?? []));
}

async function loadMember(db: Db, actor: Actor, id: number): Promise<TeamMemberDto> {
  const [member] = await loadMembers(db, actor, id);
  if (!member) throw notFound();
  return member;
}

/** Team management: owner only (PRODUCT.md section 2); every query is scoped to the owner's account. */
export default async function teamRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ownerOnly = async (request: { actor: Actor }) => authorize(request.actor, 'team.manage');
  // onRequest, not preHandler: a stranger or a member gets 401/403 before any body is parsed or validated.
  const onRequest = [authenticate, ownerOnly];

  app.get('/team', { schema: { tags: ['team'], ...secured }, onRequest }, async (request) => {
    const [data, roleRows] = await Promise.all([
      loadMembers(app.db, request.actor),
      app.db.select({ id: roles.id, name: roles.name }).from(roles).orderBy(asc(roles.id)),
    ]);
    return { message: 'success', data, roles: roleRows };
  });

  // The website's users: visitors who have a conversation, newest conversation first.
  app.get('/users', { schema: { tags: ['team'], ...secured }, onRequest }, async (request) => {
    const rows = await app.db
      .select({ visitorId: visitors.id, visitorName: visitors.name })
      .from(conversations)
      .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
      .where(visibleConversations(request.actor))
      .orderBy(desc(conversations.createdAt), desc(conversations.id));
    return { message: 'success', data: rows.map(presentAssignableUser) };
  });

  app.post('/team', { schema: { tags: ['team'], body: addMemberSchema, ...secured }, onRequest }, async (request, reply) => {
    const { name, email, password, role_id } = request.body;
    const { id } = await addTeamMember(app.db, { accountId: request.actor.accountId, name, email, password, roleId: role_id });
    await audit(request, 'member.added', `user:${id}`, { email, role_id });
    return reply.status(201).send({ message: 'success', data: await loadMember(app.db, request.actor, id) });
  });

  app.delete('/team/:id', { schema: { tags: ['team'], params: memberParams, ...secured }, onRequest }, async (request) => {
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
    { schema: { tags: ['team'], params: memberParams, body: memberStatusSchema, ...secured }, onRequest },
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
    { schema: { tags: ['team'], params: memberParams, body: assignUsersSchema, ...secured }, onRequest },
    async (request) => {
      const id = parseMemberId(request.params.id);
      const changed = await assignUsers(app.db, request.actor, id, request.body.user_ids);
      await audit(request, 'member.assigned', `user:${id}`, { users: request.body.user_ids.length });
      await app.events.emit('conversations.assigned', { accountId: request.actor.accountId, conversationIds: changed });
      return { message: 'success', data: await loadMember(app.db, request.actor, id) };
    },
  );
}
