import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type BusinessHoursDto, type WeekHours, WEEKDAYS, businessHoursSchema } from '@parley/shared';
import { accounts } from '../../db/schema.js';
import { notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { businessHoursDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';
import { audit } from '../../services/audit.js';
import { isOpenAt, nextOpening } from '../../services/businessHours.js';

const secured = { security: [{ bearer: [] }] };

/** The hours as stored: every weekday named (null when closed), in the week's order. */
const normalise = (hours: WeekHours | null): WeekHours | null => (hours ? Object.fromEntries(WEEKDAYS.map((d) => [d, hours[d] ?? null])) : null);

function present(row: { timeZone: string; businessHours: WeekHours | null }, now = new Date()): BusinessHoursDto {
  const next = nextOpening(row.businessHours, row.timeZone, now);
  return { time_zone: row.timeZone, hours: normalise(row.businessHours), open_now: isOpenAt(row.businessHours, row.timeZone, now), next_open_at: next?.toISOString() ?? null };
}

/**
 * Issue 17: the account's business hours (services/businessHours.ts). Everyone signed in reads
 * them (Agents read the settings); the owner and Admins change them, with the account's time zone
 * they are in (the same accounts.time_zone as the conversation settings). Outside them the
 * assistant's hand-over tells the visitor when the team is back.
 */
export default async function businessHoursRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/business-hours',
    { schema: { response: { 200: okSchema(businessHoursDtoSchema) }, tags: ['settings'], summary: "The account's business hours and time zone", ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'settings.read');
      const [row] = await app.db.select({ timeZone: accounts.timeZone, businessHours: accounts.businessHours }).from(accounts).where(eq(accounts.id, request.actor.accountId));
      if (!row) throw notFound();
      return { message: 'success', data: present(row) };
    },
  );

  app.put(
    '/business-hours',
    {
      schema: {
        response: { 200: okSchema(businessHoursDtoSchema) },
        tags: ['settings'],
        summary: 'Set the business hours',
        description:
          '`hours`: null = always open, else per weekday (`mon`...`sun`) `{ open: "HH:MM", close: "HH:MM" }` (close after open; "24:00" is midnight) or null for closed; at least one open day. Optional `time_zone` (IANA): the account\'s time zone the hours are in. Owner/Admin.',
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'settings.write');
      const input = parseOrThrow(businessHoursSchema, request.body);
      const set = { businessHours: normalise(input.hours), ...(input.time_zone !== undefined ? { timeZone: input.time_zone } : {}) };
      const [row] = await app.db
        .update(accounts)
        .set(set)
        .where(eq(accounts.id, request.actor.accountId))
        .returning({ timeZone: accounts.timeZone, businessHours: accounts.businessHours });
      if (!row) throw notFound();
      await audit(request, 'settings.updated', 'business_hours', { always_open: input.hours === null, ...(input.time_zone !== undefined ? { time_zone: input.time_zone } : {}) });
      return { message: 'success', data: present(row) };
    },
  );
}
