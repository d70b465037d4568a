import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type AvailabilityDto, type ConversationSettingsDto, availabilitySchema, conversationSettingsSchema } from '@parley/shared';
import { accounts, users } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { scheduleAutoResolve } from '../../jobs/lifecycle.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize, type Rule } from '../../policies/index.js';
import { audit } from '../../services/audit.js';
import { availabilityDtoSchema, conversationSettingsDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const allow = (rule: Rule) => [authenticate, async (request: FastifyRequest) => authorize(request.actor, rule)];

const presentSettings = (a: { timeZone: string; autoResolveHours: number | null; roundRobin: boolean }): ConversationSettingsDto => ({
  time_zone: a.timeZone,
  auto_resolve_hours: a.autoResolveHours,
  round_robin: a.roundRobin,
});
const presentAvailability = (u: { availability: 'online' | 'away'; maxOpenChats: number | null }): AvailabilityDto => ({
  availability: u.availability,
  max_open_chats: u.maxOpenChats,
});

/**
 * Issue 16 settings: the account's inbox settings (time zone, auto-resolve, round-robin routing;
 * everyone reads, owner/Admin write) and each member's own availability and cap of open chats.
 */
export default async function conversationSettingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/conversation-settings',
    { schema: { response: { 200: okSchema(conversationSettingsDtoSchema) }, tags: ['settings'], summary: "The account's inbox settings", ...secured }, onRequest: allow('settings.read') },
    async (request) => {
      const [row] = await app.db.select().from(accounts).where(eq(accounts.id, request.actor.accountId));
      if (!row) throw notFound();
      return { message: 'success', data: presentSettings(row) };
    },
  );

  app.post(
    '/conversation-settings',
    {
      schema: { response: { 200: okSchema(conversationSettingsDtoSchema) },
        tags: ['settings'],
        summary: "Change the account's inbox settings",
        description:
          'Any subset of `time_zone` (IANA, default UTC), `auto_resolve_hours` (1-2160, null = off, the default) and `round_robin` (default false: new conversations go round-robin to Agents who are online and under their cap). Owner/Admin.',
        body: conversationSettingsSchema,
        ...secured,
      },
      onRequest: allow('settings.write'),
    },
    async (request) => {
      const { time_zone, auto_resolve_hours, round_robin } = request.body;
      const set = {
        ...(time_zone !== undefined ? { timeZone: time_zone } : {}),
        ...(auto_resolve_hours !== undefined ? { autoResolveHours: auto_resolve_hours } : {}),
        ...(round_robin !== undefined ? { roundRobin: round_robin } : {}),
      };
      const [before] = await app.db.select({ hours: accounts.autoResolveHours }).from(accounts).where(eq(accounts.id, request.actor.accountId));
      const [row] =
        Object.keys(set).length > 0
          ? await app.db.update(accounts).set(set).where(eq(accounts.id, request.actor.accountId)).returning()
          : await app.db.select().from(accounts).where(eq(accounts.id, request.actor.accountId));
      if (!row || !before) throw notFound();
      // New hours: the waiting job (timed for the old ones) is replaced by a run now.
      if (before.hours !== row.autoResolveHours) await scheduleAutoResolve(app, row.id, { restart: true });
      await audit(request, 'settings.updated', 'conversation_settings', { fields: Object.keys(request.body) });
      return { message: 'success', data: presentSettings(row) };
    },
  );

  app.get(
    '/me/availability',
    { schema: { response: { 200: okSchema(availabilityDtoSchema) }, tags: ['settings'], summary: 'My availability and cap of open chats', ...secured }, onRequest: authenticate },
    async (request) => {
      const [row] = await app.db.select().from(users).where(eq(users.id, request.actor.id));
      if (!row) throw notFound();
      return { message: 'success', data: presentAvailability(row) };
    },
  );

  app.patch(
    '/me/availability',
    {
      schema: { response: { 200: okSchema(availabilityDtoSchema) },
        tags: ['settings'],
        summary: 'Set my availability (online/away) and optional cap of open chats',
        description:
          "Each member for themselves. Away: routing skips them and, when nobody else is online, the widget shows the team as offline. `max_open_chats` (null = no cap): routing gives them no new conversation while they hold that many open ones.",
        body: availabilitySchema,
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      const { availability, max_open_chats } = request.body;
      const set = {
        ...(availability !== undefined ? { availability } : {}),
        ...(max_open_chats !== undefined ? { maxOpenChats: max_open_chats } : {}),
      };
      const [row] =
        Object.keys(set).length > 0
          ? await app.db.update(users).set(set).where(eq(users.id, request.actor.id)).returning()
          : await app.db.select().from(users).where(eq(users.id, request.actor.id));
      if (!row) throw notFound();
      if (availability !== undefined) await app.events.emit('agents.availabilityChanged', { accountId: request.actor.accountId });
      return { message: 'success', data: presentAvailability(row) };
    },
  );
}
