import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
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

/** The visitor behind a visitor token (HTTP bearer or socket handshake), if any. */
export async function visitorForToken(db: Db, token: string): Promise<VisitorRow | undefined> {
  const [visitor] = await db.select().from(visitors).where(eq(visitors.tokenHash, hashToken(token))).limit(1);
  return visitor;
}

/** onRequest hook for the widget's visitor calls: a visitor token reaches only that visitor's rows. */
export async function authenticateVisitor(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw new HttpError(401, 'No authentication token found');
  const visitor = await visitorForToken(request.server.db, token);
  if (!visitor) throw unauthenticated();
  request.visitor = visitor;
}
