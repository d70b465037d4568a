import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import { IMAGE_MIME_TYPES, NOT_AN_IMAGE } from '@parley/shared';
import { HttpError } from '../errors.js';
import type { Uploader } from '../storage/budgets.js';
import { checkDimensions, type ImageLimits } from '../storage/images.js';
import { NUL_MESSAGE } from './bodyParsers.js';

export interface UploadedImage {
  bytes: Buffer;
  mime: (typeof IMAGE_MIME_TYPES)[number];
  ext: string;
}

export interface MultipartBody {
  fields: Record<string, string>;
  image?: UploadedImage;
}

const MAX_FIELD_BYTES = 64 * 1024;

/** The widget visitor or the console user behind a request (its routes authenticate first). */
function uploaderOf(request: FastifyRequest): Uploader {
  const { visitor, actor } = request as Partial<Pick<FastifyRequest, 'visitor' | 'actor'>>;
  if (visitor) return { accountId: visitor.accountId, visitorId: visitor.id };
  if (actor) return { accountId: actor.accountId };
  throw new Error('uploads need an authenticated visitor or user');
}

/**
 * Reads a multipart form: text fields, and at most one image in `fileField`, whose size is
 * capped while streaming and whose type is decided by its bytes (png, jpeg, gif, webp).
 * A request that is not multipart is read as a JSON/urlencoded body of fields.
 * Every route that accepts files reads them here: the uploader's budgets (per visitor, per
 * account) are checked before a file is read and spent once its size is known, and an image
 * whose header claims too many pixels is refused; nothing is stored (Storage.save does that).
 */
export async function readForm(
  request: FastifyRequest,
  opts: { fileField: string; maxBytes: number; tooLargeMessage: string },
): Promise<MultipartBody> {
  if (!request.isMultipart()) {
    const body = request.body;
    const fields: Record<string, string> = {};
    if (body && typeof body === 'object') {
      for (const [k, v] of Object.entries(body)) {
        if (typeof v === 'string') fields[k] = v;
        else if (typeof v === 'number' || typeof v === 'boolean') fields[k] = String(v);
        else if (v !== null && v !== undefined) throw new HttpError(422, `${k} must be text`, { [k]: [`${k} must be text`] });
      }
    }
    return { fields };
  }
  const fields: Record<string, string> = {};
  let image: UploadedImage | undefined;
  const parts = request.parts({
    limits: { fileSize: opts.maxBytes, files: 1, fields: 20, fieldSize: MAX_FIELD_BYTES, parts: 21 },
  });
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') {
          if (part.value.includes('\u0000')) throw new HttpError(400, NUL_MESSAGE);
          fields[part.fieldname] = part.value;
        }
        continue;
      }
      if (part.fieldname !== opts.fileField) {
        await drain(part);
        throw new HttpError(422, `Unexpected file field "${part.fieldname}"`, {
          [part.fieldname]: [`Unexpected file field "${part.fieldname}"`],
        });
      }
      const { storage, config } = request.server;
      const uploader = uploaderOf(request);
      await storage.checkBudget(uploader);
      const bytes = await part.toBuffer();
      if (bytes.length === 0) continue; // an empty file input means "no image"
      await storage.spendBudget(uploader, bytes.length);
      image = await sniffImage(bytes, opts.fileField, config.uploads);
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new HttpError(413, opts.tooLargeMessage, { [opts.fileField]: [opts.tooLargeMessage] });
    if (code === 'FST_FILES_LIMIT') throw new HttpError(422, 'Only one image can be sent at a time');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw new HttpError(413, 'Too many form fields');
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_PROTO_VIOLATION') throw new HttpError(400, 'The request is not valid multipart');
    throw new HttpError(400, 'The upload could not be read');
  }
  return image ? { fields, image } : { fields };
}

async function drain(part: MultipartFile): Promise<void> {
  part.file.resume();
  await new Promise((resolve) => part.file.on('end', resolve).on('error', resolve));
}

/** The image type from its bytes (415 otherwise), then its dimensions from its header (422 above the limits). */
export async function sniffImage(bytes: Buffer, field: string, limits: ImageLimits): Promise<UploadedImage> {
  const type = await fileTypeFromBuffer(bytes);
  const mime = type?.mime as UploadedImage['mime'] | undefined;
  if (!type || !mime || !IMAGE_MIME_TYPES.includes(mime)) {
    throw new HttpError(415, NOT_AN_IMAGE, { [field]: [NOT_AN_IMAGE] });
  }
  checkDimensions(bytes, limits, field);
  return { bytes, mime, ext: type.ext };
}
