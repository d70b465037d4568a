import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AVATAR_MAX_BYTES,
  AVATAR_TOO_LARGE,
  BRANDING_NEEDS_PROFESSIONAL,
  accountInfoSchema,
  chatWidgetSettingsSchema,
  greetingsSchema,
  widgetSettingsSchema,
} from '@parley/shared';
import { hasProfessional } from '../../billing/limits.js';
import { accounts, widgetSettings } from '../../db/schema.js';
import { HttpError, notFound, parseOrThrow } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm, type UploadedImage } from '../../plugins/uploads.js';
import { authorize, type Rule } from '../../policies/index.js';
import { presentWidgetSettings } from '../../presenters/widgetSettings.js';
import alertRoutes from './alerts.js';
import { audit } from '../../services/audit.js';
import { okSchema, widgetSettingsDtoSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

type SettingsRow = typeof widgetSettings.$inferSelect;
type SettingsPatch = Partial<Pick<SettingsRow, 'name' | 'title' | 'color' | 'emailNotifications' | 'hideBranding'>>;

const secured = { security: [{ bearer: [] }] };
const multipartBody = { consumes: ['multipart/form-data', 'application/json'] };

/**
 * Runs on onRequest, before the body is read: a missing token is 401 and an Agent's write is
 * 403 before any validation, and an upload from someone who may not save is never parsed.
 */
const allow = (rule: Rule) => [
  authenticate,
  async (request: FastifyRequest) => authorize(request.actor, rule),
];

async function loadSettings(app: FastifyInstance, accountId: string): Promise<SettingsRow> {
  const [row] = await app.db.select().from(widgetSettings).where(eq(widgetSettings.accountId, accountId));
  if (row) return row;
  // registerAccount creates the row; should one be missing, the defaults of the table apply.
  const [created] = await app.db.insert(widgetSettings).values({ accountId }).onConflictDoNothing().returning();
  if (created) return created;
  const [again] = await app.db.select().from(widgetSettings).where(eq(widgetSettings.accountId, accountId));
  return again!;
}

/** A stored avatar path we wrote ourselves: `<account id>/<random>.<ext>`, nothing else is removed. */
function ownAvatarPath(accountId: string, rel: string): boolean {
  return rel.startsWith(`${accountId}/`) && /^[A-Za-z0-9_-]+\.[a-z0-9]+$/.test(rel.slice(accountId.length + 1));
}

/**
 * Saves the widget's look: the new avatar file first, then the row; the old avatar file goes
 * once the row points at the new one, and the new file goes if the row could not be written.
 */
async function saveWidgetLook(
  app: FastifyInstance,
  accountId: string,
  patch: SettingsPatch,
  image: UploadedImage | undefined,
): Promise<SettingsRow> {
  const previous = image ? (await loadSettings(app, accountId)).avatar : '';
  const avatar = image ? await app.storage.save(accountId, image.bytes, image.ext, { thumbnail: false }) : undefined;
  const set = { ...patch, ...(avatar ? { avatar } : {}), updatedAt: new Date() };
  let row: SettingsRow | undefined;
  try {
    [row] = await app.db
      .insert(widgetSettings)
      .values({ accountId, ...set })
      .onConflictDoUpdate({ target: widgetSettings.accountId, set })
      .returning();
  } catch (e) {
    if (avatar) await app.storage.remove(avatar);
    throw e;
  }
  if (avatar && previous && previous !== avatar && ownAvatarPath(accountId, previous)) {
    await app.storage.remove(previous).catch(() => {});
  }
  return row!;
}

const readAvatarForm = (request: FastifyRequest) =>
  readForm(request, { fileField: 'avatar', maxBytes: AVATAR_MAX_BYTES, tooLargeMessage: AVATAR_TOO_LARGE });

const presentAccountInfo = (row: { websiteUrl: string; phoneNumber: string; businessLocation: string }) => ({
  website_url: row.websiteUrl,
  phone_number: row.phoneNumber,
  business_location: row.businessLocation,
});

export default async function settingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Each user's own console alerts (issue 16), beside the account's widget settings.
  await app.register(alertRoutes);

  app.get(
    '/widget-settings',
    { schema: { response: { 200: okSchema(widgetSettingsDtoSchema.extend({ avatar_url: z.string() })) }, tags: ['settings'], ...secured }, onRequest: allow('settings.read') },
    async (request) => ({ message: 'success', data: presentWidgetSettings(await loadSettings(app, request.actor.accountId)) }),
  );

  app.post(
    '/widget-settings',
    { schema: { response: { 200: okSchema(widgetSettingsDtoSchema.extend({ avatar_url: z.string() })) }, tags: ['settings'], ...secured, ...multipartBody }, onRequest: allow('settings.write') },
    async (request) => {
      const form = await readAvatarForm(request);
      const input = parseOrThrow(widgetSettingsSchema, form.fields);
      const patch: SettingsPatch = { name: input.name, color: input.color };
      if (input.title !== undefined) patch.title = input.title;
      if (input.email_notifications) patch.emailNotifications = input.email_notifications;
      if (input.hide_branding !== undefined) {
        // Turning the credit off needs Professional (or its trial); turning it back on never does.
        if (input.hide_branding && !(await hasProfessional(app.db, request.actor.accountId, new Date()))) {
          throw new HttpError(403, BRANDING_NEEDS_PROFESSIONAL);
        }
        patch.hideBranding = input.hide_branding;
      }
      const row = await saveWidgetLook(app, request.actor.accountId, patch, form.image);
      await audit(request, 'settings.updated', 'widget_settings', { fields: Object.keys(patch) });
      return { message: 'success', data: presentWidgetSettings(row) };
    },
  );

  // Onboarding step 1: the same look, with the title/department instead of the notifications.
  app.post(
    '/chatwidget-settings',
    { schema: { response: { 200: okSchema(widgetSettingsDtoSchema.extend({ avatar_url: z.string() })) }, tags: ['settings'], ...secured, ...multipartBody }, onRequest: allow('settings.write') },
    async (request) => {
      const form = await readAvatarForm(request);
      const input = parseOrThrow(chatWidgetSettingsSchema, form.fields);
      const row = await saveWidgetLook(app, request.actor.accountId, input, form.image);
      await audit(request, 'settings.updated', 'widget_settings', { fields: Object.keys(input) });
      return { message: 'success', data: presentWidgetSettings(row) };
    },
  );

  app.get(
    '/greetings',
    { schema: { response: { 200: okSchema(z.object({ initial_greeting: z.string(), follow_up_greeting: z.string() })) }, tags: ['settings'], ...secured }, onRequest: allow('settings.read') },
    async (request) => {
      const row = await loadSettings(app, request.actor.accountId);
      return { message: 'success', data: { initial_greeting: row.initialGreeting, follow_up_greeting: row.followUpGreeting } };
    },
  );

  app.post(
    '/greetings',
    { schema: { response: { 200: okSchema(z.object({ initial_greeting: z.string(), follow_up_greeting: z.string() })) }, tags: ['settings'], body: greetingsSchema, ...secured }, onRequest: allow('settings.write') },
    async (request) => {
      const accountId = request.actor.accountId;
      const set = {
        initialGreeting: request.body.initial_greeting,
        followUpGreeting: request.body.follow_up_greeting,
        updatedAt: new Date(),
      };
      const [row] = await app.db
        .insert(widgetSettings)
        .values({ accountId, ...set })
        .onConflictDoUpdate({ target: widgetSettings.accountId, set })
        .returning();
      await audit(request, 'settings.updated', 'greetings');
      return { message: 'success', data: { initial_greeting: row!.initialGreeting, follow_up_greeting: row!.followUpGreeting } };
    },
  );

  app.get(
    '/account-info',
    { schema: { response: { 200: okSchema(z.object({ website_url: z.string(), phone_number: z.string(), business_location: z.string() })) }, tags: ['settings'], ...secured }, onRequest: allow('settings.read') },
    async (request) => {
      const [row] = await app.db.select().from(accounts).where(eq(accounts.id, request.actor.accountId));
      if (!row) throw notFound(); // only when the account was deleted mid-request
      return { message: 'success', data: presentAccountInfo(row) };
    },
  );

  app.post(
    '/account-info',
    { schema: { response: { 200: okSchema(z.object({ website_url: z.string(), phone_number: z.string(), business_location: z.string() })) }, tags: ['settings'], body: accountInfoSchema, ...secured }, onRequest: allow('settings.write') },
    async (request) => {
      const { website_url, phone_number, business_location } = request.body;
      const [row] = await app.db
        .update(accounts)
        .set({ websiteUrl: website_url, phoneNumber: phone_number, businessLocation: business_location })
        .where(eq(accounts.id, request.actor.accountId))
        .returning();
      if (!row) throw notFound();
      await audit(request, 'settings.updated', 'account_info');
      return { message: 'success', data: presentAccountInfo(row) };
    },
  );
}
