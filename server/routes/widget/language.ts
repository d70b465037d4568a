import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type WidgetLanguageDto, widgetLanguageSchema } from '@parley/shared';
import { widgetSettings } from '../../db/schema.js';
import { parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { okSchema, widgetLanguageDtoSchema } from '../../presenters/dtoSchemas.js';
import { audit } from '../../services/audit.js';

const secured = { security: [{ bearer: [] }] };

type Row = { language: string; greetingsByLanguage: WidgetLanguageDto['greetings_by_language'] };
const present = (row: Row | undefined): WidgetLanguageDto => ({ language: row?.language ?? '', greetings_by_language: row?.greetingsByLanguage ?? {} });

/**
 * Issue 13: the widget's language. GET for everyone signed in (Agents read the settings),
 * PUT for the owner and Admins (PRODUCT.md section 2: widget settings, greetings). The public
 * widget settings carry both fields; the widget picks the forced language, else the browser's.
 */
export default async function widgetLanguageRoutes(app: FastifyInstance): Promise<void> {
  app.get('/widget-language', { schema: { response: { 200: okSchema(widgetLanguageDtoSchema) }, tags: ['settings'], summary: "The widget's language and greetings per language", ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'settings.read');
    const [row] = await app.db
      .select({ language: widgetSettings.language, greetingsByLanguage: widgetSettings.greetingsByLanguage })
      .from(widgetSettings)
      .where(eq(widgetSettings.accountId, request.actor.accountId));
    return { message: 'success', data: present(row) };
  });

  app.put('/widget-language', { schema: { response: { 200: okSchema(widgetLanguageDtoSchema) }, tags: ['settings'], summary: "Force the widget's language, greetings per language", ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'settings.write');
    const input = parseOrThrow(widgetLanguageSchema, request.body);
    const values = { language: input.language, greetingsByLanguage: input.greetings_by_language, updatedAt: new Date() };
    const [row] = await app.db
      .insert(widgetSettings)
      .values({ accountId: request.actor.accountId, ...values })
      .onConflictDoUpdate({ target: widgetSettings.accountId, set: values })
      .returning({ language: widgetSettings.language, greetingsByLanguage: widgetSettings.greetingsByLanguage });
    await audit(request, 'settings.updated', 'widget_language', { language: input.language });
    return { message: 'success', data: present(row) };
  });
}
