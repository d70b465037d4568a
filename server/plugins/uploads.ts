import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { CHAT_FILE_TOO_LARGE, DOCUMENT_TYPES, IMAGE_MIME_TYPES, MAX_FILE_NAME, NOT_AN_ALLOWED_FILE, NOT_AN_IMAGE } from '@parley/shared';
import { HttpError } from '../errors.js';
import type { Uploader } from '../storage/budgets.js';
import { checkDimensions, type ImageLimits } from '../storage/images.js';
import { NUL_MESSAGE } from './bodyParsers.js';

export interface UploadedImage {
  bytes: Buffer;
  mime: (typeof IMAGE_MIME_TYPES)[number];
  ext: string;
  /** The sender's file name, cleaned (readForm sets it). */
  name?: string;
}

/** An attachment: an image (previewed) or a document (pdf, txt, csv, docx, xlsx: a file chip). */
export interface UploadedFile {
  bytes: Buffer;
  mime: string;
  ext: string;
  /** The sender's file name, cleaned, with the extension of the sniffed type. */
  name: string;
  isImage: boolean;
}

export interface MultipartBody {
  fields: Record<string, string>;
  image?: UploadedImage;
  /** From `opts.documentField`: an image or a document. */
  file?: UploadedFile;
}

const MAX_FIELD_BYTES = 64 * 1024;

/** The chat's `file` field (issue 13): an image or a document, beside SPEC's `image` field. */
export const CHAT_DOCUMENTS = { documentField: 'file', documentTooLargeMessage: CHAT_FILE_TOO_LARGE } as const;

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
  opts: { fileField: string; maxBytes: number; tooLargeMessage: string; documentField?: string; documentTooLargeMessage?: string },
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
  let file: UploadedFile | undefined;
  let tooLarge = { field: opts.fileField, message: opts.tooLargeMessage };
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
      const isDocument = part.fieldname === opts.documentField;
      if (isDocument) tooLarge = { field: part.fieldname, message: opts.documentTooLargeMessage ?? opts.tooLargeMessage };
      if (part.fieldname !== opts.fileField && !isDocument) {
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
      if (isDocument) file = await sniffFile(bytes, part.filename, part.fieldname, config.uploads);
      else {
        const sniffed = await sniffImage(bytes, opts.fileField, config.uploads);
        image = { ...sniffed, name: cleanFileName(part.filename, sniffed.ext) };
      }
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new HttpError(413, tooLarge.message, { [tooLarge.field]: [tooLarge.message] });
    if (code === 'FST_FILES_LIMIT') throw new HttpError(422, opts.documentField ? 'Only one file can be sent at a time' : 'Only one image can be sent at a time');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw new HttpError(413, 'Too many form fields');
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_PROTO_VIOLATION') throw new HttpError(400, 'The request is not valid multipart');
    throw new HttpError(400, 'The upload could not be read');
  }
  return { fields, ...(image ? { image } : {}), ...(file ? { file } : {}) };
}

async function drain(part: MultipartFile): Promise<void> {
  part.file.resume();
  await new Promise((resolve) => part.file.on('end', resolve).on('error', resolve));
}

/** file-type, loaded at the first upload when the app is built in a test; `npm start` loads it before listening (index.ts). */
export const loadSniffer = () => import('file-type');
/** The type a file's bytes say. */
const sniff = async (bytes: Buffer) => (await loadSniffer()).fileTypeFromBuffer(bytes);

/** The image type from its bytes (415 otherwise), then its dimensions from its header (422 above the limits). */
export async function sniffImage(bytes: Buffer, field: string, limits: ImageLimits): Promise<UploadedImage> {
  const type = await sniff(bytes);
  const mime = type?.mime as UploadedImage['mime'] | undefined;
  if (!type || !mime || !IMAGE_MIME_TYPES.includes(mime)) {
    throw new HttpError(415, NOT_AN_IMAGE, { [field]: [NOT_AN_IMAGE] });
  }
  checkDimensions(bytes, limits, field);
  return { bytes, mime, ext: type.ext };
}

const DOCUMENT_MIMES = new Set<string>(Object.values(DOCUMENT_TYPES));

/**
 * An attachment's type from its bytes: an image (as sniffImage), a PDF, DOCX or XLSX by their
 * signatures (file-type reads the zip's entries, so a renamed zip or executable is refused), or
 * text: valid UTF-8 with no control characters but tab and line breaks, and not HTML/SVG/XML
 * markup (a page disguised as text) — CSV when its name says .csv, TXT otherwise. 415 for
 * anything else.
 */
export async function sniffFile(bytes: Buffer, filename: string | undefined, field: string, limits: ImageLimits): Promise<UploadedFile> {
  const refuse = (): never => {
    throw new HttpError(415, NOT_AN_ALLOWED_FILE, { [field]: [NOT_AN_ALLOWED_FILE] });
  };
  const type = await sniff(bytes);
  let mime: string;
  let ext: string;
  if (type) {
    if ((IMAGE_MIME_TYPES as readonly string[]).includes(type.mime)) {
      checkDimensions(bytes, limits, field);
      return { bytes, mime: type.mime, ext: type.ext, name: cleanFileName(filename, type.ext), isImage: true };
    }
    if (!DOCUMENT_MIMES.has(type.mime)) return refuse();
    mime = type.mime;
    ext = type.ext;
  } else {
    if (!isPlainText(bytes)) return refuse();
    ext = /\.csv$/i.test(filename ?? '') ? 'csv' : 'txt';
    mime = DOCUMENT_TYPES[ext as 'csv' | 'txt'];
  }
  return { bytes, mime, ext, name: cleanFileName(filename, ext), isImage: false };
}

/** UTF-8 text with no NUL or other control characters (tab, line breaks, form feed allowed), and no markup a browser would render. */
function isPlainText(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return false;
  const head = text.slice(0, 1024).replace(/^\ufeff/, '').trimStart().toLowerCase();
  return !/^<(!doctype|html|head|body|script|svg|\?xml|iframe|meta|!--)/.test(head) && !/<(script|html|svg|iframe)[\s>/]/.test(text.slice(0, 4096).toLowerCase());
}

/** The sender's name without folders or control characters, at most MAX_FILE_NAME characters, ending in the sniffed type's extension. */
export function cleanFileName(filename: string | undefined, ext: string): string {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  let stem = base.replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '').trim().replace(/^\.+/, '');
  const dot = stem.lastIndexOf('.');
  if (dot > 0 && stem.slice(dot + 1).toLowerCase() === ext) stem = stem.slice(0, dot);
  else if (dot > 0 && ['jpeg', 'jpg'].includes(stem.slice(dot + 1).toLowerCase()) && ext === 'jpg') stem = stem.slice(0, dot);
  stem = stem.slice(0, MAX_FILE_NAME - ext.length - 1) || 'file';
  return `${stem}.${ext}`;
}
