import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { conversations } from '../db/schema.js';
import { bearer, call } from './factories.js';

/** A real 1x1 transparent PNG (signature, IHDR, IDAT, IEND). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export interface FilePart {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/** A multipart/form-data body built by hand (app.inject does not take FormData). */
export function multipart(fields: Record<string, string>, file?: FilePart): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----parley${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export const pngPart = (bytes: Buffer = TINY_PNG, filename = 'photo.png'): FilePart => ({
  field: 'image',
  filename,
  contentType: 'image/png',
  bytes,
});

/** POSTs a multipart form with a bearer token; returns status and parsed body. */
export async function postForm(
  app: FastifyInstance,
  url: string,
  token: string | undefined,
  fields: Record<string, string>,
  file?: FilePart,
  // any: test bodies are read field by field, like call() in factories.ts
): Promise<{ status: number; body: any }> {
  const { payload, headers } = multipart(fields, file);
  const res = await app.inject({ method: 'POST', url, payload, headers: { ...headers, ...(token ? bearer(token) : {}) } });
  return { status: res.statusCode, body: res.json() };
}

export interface TestVisitor {
  id: string;
  token: string;
}

/** A visitor created through the widget's public endpoint. */
export async function buildVisitor(
  app: FastifyInstance,
  widgetKey: string,
  body: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<TestVisitor> {
  const res = await call(app, 'POST', '/api/widget/visitors', { body: { unique_code: widgetKey, ...body }, headers });
  if (res.status !== 201) throw new Error(`visitor create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.visitor_id, token: res.body.data.visitor_token };
}

/** A visitor who has written `text` through the widget, so their conversation exists. */
export async function buildChattingVisitor(app: FastifyInstance, widgetKey: string, text = 'Hello there', name = 'Vera'): Promise<TestVisitor> {
  const visitor = await buildVisitor(app, widgetKey, { name });
  const res = await call(app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: text } });
  if (res.status !== 201) throw new Error(`widget send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return visitor;
}

export async function assignConversation(app: FastifyInstance, visitorId: string, assigneeId: number | null): Promise<void> {
  await app.database.db.update(conversations).set({ assigneeId }).where(eq(conversations.visitorId, visitorId));
}
