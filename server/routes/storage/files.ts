import type { FastifyInstance } from 'fastify';
import { mimeOf } from '../../services/storage.js';
import { storageDisposition } from './disposition.js';

/** The headers of every file served from /storage/, whichever backend holds it. */
export function storageHeaders(rel: string, url: string | undefined): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    // Images show inline; documents (issue 13) always download, named by the link's ?name=.
    'Content-Disposition': storageDisposition(rel, url),
    'Content-Security-Policy': "default-src 'none'; img-src 'self'; sandbox",
    'Cache-Control': 'public, max-age=31536000, immutable',
  };
}

/** `<account id>/<random>.<ext>` (and its `-t` thumbnail): nothing else is ever looked up. */
const STORED_PATH = /^[A-Za-z0-9-]{1,64}\/[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9]{1,8}$/;

/**
 * GET /storage/<path> when the files are in a bucket (STORAGE_URL): the node streams them from
 * the backend with the same headers as the local folder's static server (app.ts). Unguessable
 * paths are the access control, as on the local folder.
 */
export default async function storageFileRoutes(app: FastifyInstance): Promise<void> {
  app.get('/storage/*', { schema: { hide: true } }, async (request, reply) => {
    const rel = (request.params as { '*': string })['*'];
    const file = STORED_PATH.test(rel) ? await app.storage.open(rel) : undefined;
    if (!file) return reply.code(404).send({ message: 'Not Found' });
    const ext = rel.slice(rel.lastIndexOf('.') + 1);
    reply.headers({ ...storageHeaders(rel, request.url), 'Content-Type': mimeOf(ext), 'Content-Length': String(file.size) });
    return reply.send(file.body);
  });
}
