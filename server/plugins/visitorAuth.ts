import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { visitors } from '../db/schema.js';
import { HttpError, unauthenticated } from '../errors.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { hashToken } from '../services/secrets.js';
import { bearerToken } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The widget visitor behind `Authorization: Bearer <visitor_token>` (widget routes only). */
    visitor: VisitorRow;
  }
}

/** preHandler for the widget's visitor calls: a visitor token reaches only that visitor's rows. */
export async function authenticateVisitor(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw new HttpError(401, 'No authentication token found');
  const [visitor] = await request.server.db.select().from(visitors).where(eq(visitors.tokenHash, hashToken(token))).limit(1);
  if (!visitor) throw unauthenticated();
  request.visitor = visitor;
}
