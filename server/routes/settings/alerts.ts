import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type AlertPrefsDto, alertPrefsSchema } from '@parley/shared';
import { users } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { alertPrefsDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };

const present = (row: { alertDesktop: boolean; alertSound: boolean }): AlertPrefsDto => ({ desktop: row.alertDesktop, sound: row.alertSound });

/**
 * The signed-in user's own console alerts (issue 16 "Never miss a chat"): every role may read
 * and change its own, nobody another user's (the row is the token's user, never a parameter).
 */
export default async function alertRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const columns = { alertDesktop: users.alertDesktop, alertSound: users.alertSound };

  app.get('/user/alerts', { schema: { response: { 200: okSchema(alertPrefsDtoSchema) }, tags: ['settings'], ...secured }, onRequest: authenticate }, async (request) => {
    const [row] = await app.db.select(columns).from(users).where(eq(users.id, request.actor.id));
    if (!row) throw notFound(); // only when the user was removed mid-request
    return { message: 'success', data: present(row) };
  });

  app.put('/user/alerts', { schema: { response: { 200: okSchema(alertPrefsDtoSchema) }, tags: ['settings'], body: alertPrefsSchema, ...secured }, onRequest: authenticate }, async (request) => {
    const { desktop, sound } = request.body;
    const set = { ...(desktop !== undefined ? { alertDesktop: desktop } : {}), ...(sound !== undefined ? { alertSound: sound } : {}) };
    const [row] =
      Object.keys(set).length > 0
        ? await app.db.update(users).set(set).where(eq(users.id, request.actor.id)).returning(columns)
        : await app.db.select(columns).from(users).where(eq(users.id, request.actor.id));
    if (!row) throw notFound();
    return { message: 'success', data: present(row) };
  });
}
