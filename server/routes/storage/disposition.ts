import contentDisposition from 'content-disposition';
import { cleanFileName } from '../../plugins/uploads.js';

const INLINE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

/**
 * Content-Disposition for a file served from /storage/: images inline (SPEC's previews), every
 * other stored file (issue 13's documents) as an attachment, named by the link's `?name=` (the
 * message's file_name) but always ending in the stored file's own extension, so a link can never
 * make a PDF download as "invoice.exe".
 */
export function storageDisposition(filePath: string, url: string | undefined): string {
  const ext = filePath.slice(filePath.lastIndexOf('.') + 1).toLowerCase();
  if (INLINE_EXTENSIONS.has(ext)) return 'inline';
  let asked: string | undefined;
  try {
    asked = new URL(url ?? '/', 'http://x').searchParams.get('name') ?? undefined;
  } catch {
    asked = undefined;
  }
  return contentDisposition(cleanFileName(asked, ext));
}
