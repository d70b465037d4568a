import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type BusinessHoursDto, WEEKDAYS, type WeekHours, businessHoursSchema } from '@parley/shared';
import { accounts } from '../../db/schema.js';
import { notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { businessHoursDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';
import { audit } from '../../services/audit.js';
import { isOpenAt, nextOpening, readWeek, toStored, upcomingDates } from '../../services/businessHours.js';

const secured = { security: [{ bearer: [] }] };
const columns = { timeZone: accounts.timeZone, businessHours: accounts.businessHours, closedDates: accounts.closedDates };

/** Every weekday's openings (a closed day []), whatever shape the day was stored in; closed dates from today on. */
function present(row: { timeZone: string; businessHours: WeekHours | null; closedDates: string[] }, now = new Date()): BusinessHoursDto {
  const closed = upcomingDates(row.closedDates, row.timeZone, now);
  const next = nextOpening(row.businessHours, row.timeZone, now, closed);
  return {
    time_zone: row.timeZone,
    hours: readWeek(row.businessHours),
    closed_dates: closed,
    open_now: isOpenAt(row.businessHours, row.timeZone, now, closed),
    next_open_at: next?.toISOString() ?? null,
  };
}

/**
 * Issue 17: the account's business hours (services/businessHours.ts). Everyone signed in reads
 * them (Agents read the settings); the owner and Admins change them, with the account's time zone
 * they are in (the same accounts.time_zone as the conversation settings). Outside them the
 * assistant's hand-over and the widget's away text tell the visitor when the team is back.
 * Reading, closed dates already past are left out.
 */
export default async function businessHoursRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/business-hours',
    { schema: { response: { 200: okSchema(businessHoursDtoSchema) }, tags: ['settings'], summary: "The account's business hours and time zone", ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'settings.read');
      const [row] = await app.db.select(columns).from(accounts).where(eq(accounts.id, request.actor.accountId));
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
          '`hours`: null = always open, else per weekday (`mon`...`sun`) a list of openings `[{ open: "HH:MM", close: "HH:MM" }]` (at most 6, not overlapping, each closing after it opens; "24:00" is midnight; one opening may be sent as the object alone), [] or null for closed; at least one open day. Optional `closed_dates`: up to 100 days "YYYY-MM-DD" closed all day (holidays), replacing the list; past ones are dropped. Optional `time_zone` (IANA): the account\'s time zone the hours are in. Owner/Admin.',
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'settings.write');
      const input = parseOrThrow(businessHoursSchema, request.body);
      const now = new Date();
      const where = eq(accounts.id, request.actor.accountId);
      const [current] = await app.db.select(columns).from(accounts).where(where);
      if (!current) throw notFound();
      // The zone and closed dates are kept when left out; closed dates already past in the zone are dropped.
      const timeZone = input.time_zone ?? current.timeZone;
      const closedDates = upcomingDates(input.closed_dates ?? current.closedDates, timeZone, now);
      const [row] = await app.db.update(accounts).set({ businessHours: toStored(input.hours), timeZone, closedDates }).where(where).returning(columns);
      if (!row) throw notFound();
      await audit(request, 'settings.updated', 'business_hours', {
        always_open: input.hours === null,
        ...(input.hours ? { open_days: WEEKDAYS.filter((d) => input.hours![d].length > 0) } : {}),
        ...(input.time_zone !== undefined ? { time_zone: input.time_zone } : {}),
        ...(input.closed_dates !== undefined ? { closed_dates: row.closedDates.length } : {}),
      });
      return { message: 'success', data: present(row, now) };
    },
  );
}
