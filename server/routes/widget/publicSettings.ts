import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { widgetSettingsQuery } from '@parley/shared';
import { hasProfessional } from '../../billing/limits.js';
import { accounts, widgetSettings } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { presentPublicWidgetSettings } from '../../presenters/widgetSettings.js';
import { limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { nextOpening } from '../../services/businessHours.js';
import { isAgentOnline } from '../../services/presence.js';
import { okSchema, publicWidgetSettingsDtoSchema } from '../../presenters/dtoSchemas.js';

/**
 * GET /api/widget-settings?unique_code=... — public (no token, any origin): what the widget
 * shows. Registered with prefix '/api'. Only the presenter's public fields leave.
 */
export default async function publicWidgetSettingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Per IP only: every page load of every visitor (chatting or not) reads the settings.
  limitWidgetCalls(app, { keys: false });

  app.get(
    '/widget-settings',
    { schema: { response: { 200: okSchema(publicWidgetSettingsDtoSchema) }, tags: ['widget'], querystring: widgetSettingsQuery } },
    async (request, reply) => {
      const [row] = await app.db
        .select({ accountId: accounts.id, settings: widgetSettings, timeZone: accounts.timeZone, hours: accounts.businessHours, closedDates: accounts.closedDates })
        .from(accounts)
        .innerJoin(widgetSettings, eq(widgetSettings.accountId, accounts.id))
        .where(eq(accounts.widgetKey, request.query.unique_code));
      if (!row) throw notFound('Unknown widget');
      const agentOnline = await isAgentOnline(app.db, row.accountId);
      // The plan is looked up only when the owner asked to hide the credit.
      const brandingRemovable = row.settings.hideBranding && (await hasProfessional(app.db, row.accountId, new Date()));
      // Issue 17: outside business hours the away text says when the team is back.
      const backAt = nextOpening(row.hours, row.timeZone, new Date(), row.closedDates);
      // Greetings, colours and presence change at any time: the widget must not show stale ones.
      reply.header('Cache-Control', 'no-cache');
      return {
        message: 'success',
        data: presentPublicWidgetSettings(row.settings, { agentOnline, backAt, publicUrl: app.config.publicUrl, brandingRemovable }),
      };
    },
  );
}
