import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { bearer } from './factories.js';

export interface FilePart {
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A multipart/form-data body built by hand (app.inject does not take FormData). */
export function multipart(
  fields: Record<string, string>,
  files: Record<string, FilePart> = {},
): { payload: Buffer; headers: { 'content-type': string } } {
  const boundary = `----parley${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [name, file] of Object.entries(files)) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * Sends a multipart form with app.inject; returns status and parsed body, like factories' call().
 * The body is `any` on purpose, as in call(): tests read whatever JSON envelope came back.
 */
export async function callMultipart(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: { token?: string; fields?: Record<string, string>; files?: Record<string, FilePart> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const form = multipart(opts.fields ?? {}, opts.files ?? {});
  const res = await app.inject({
    method,
    url,
    headers: { ...(opts.token ? bearer(opts.token) : {}), ...form.headers },
    payload: form.payload,
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

/** A real 1x1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export const pngFile = (data: Buffer = TINY_PNG, filename = 'avatar.png'): FilePart => ({ filename, contentType: 'image/png', data });
