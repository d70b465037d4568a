/** Which files the console's chat may send (issue 13); the server sniffs the bytes again. */
import { CHAT_FILE_TOO_LARGE, CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, DOCUMENT_TYPES, IMAGE_MIME_TYPES, NOT_AN_ALLOWED_FILE } from '@parley/shared';

export const isImageFile = (f: Blob): boolean => (IMAGE_MIME_TYPES as readonly string[]).includes(f.type);

const documentTypeOf = (f: File): string => {
  const ext = f.name.slice(f.name.lastIndexOf('.') + 1).toLowerCase();
  return DOCUMENT_TYPES[ext as keyof typeof DOCUMENT_TYPES] ?? '';
};

/** '' when the file may be sent, else the server's own words (it sniffs the bytes again). */
export function attachmentProblem(f: File): string {
  if (isImageFile(f)) return f.size > CHAT_IMAGE_MAX_BYTES ? CHAT_IMAGE_TOO_LARGE : '';
  if (!documentTypeOf(f)) return NOT_AN_ALLOWED_FILE;
  return f.size > CHAT_IMAGE_MAX_BYTES ? CHAT_FILE_TOO_LARGE : '';
}

/** A pending message's file fields, so its chip shows while sending. */
export function localFileFields(f: File): { file_name: string; file_type: string; file_size: number } {
  return { file_name: f.name, file_type: isImageFile(f) ? f.type : documentTypeOf(f), file_size: f.size };
}

