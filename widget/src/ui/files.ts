/**
 * Attachments in the widget (issue 13): which files may go (the server sniffs the bytes again),
 * the file chip a document shows as (name and size, a download link), and drag-and-drop and
 * paste into the panel. Images keep their preview (render.ts).
 */
import { CHAT_IMAGE_MAX_BYTES, DOCUMENT_TYPES, IMAGE_MIME_TYPES, formatFileSize, isDocumentType } from '../shared.js';
import { absolute, h, icon } from './dom.js';
import type { ChatMessage } from './merge.js';

const DOC_ICON = 'M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8zm-1 7V3.5L18.5 9zM8 13h8v2H8zm0 4h8v2H8z';
export { DOC_ICON };

export const isImageFile = (f: Blob): boolean => (IMAGE_MIME_TYPES as readonly string[]).includes(f.type);

/** The document type a file's name or declared type says (the server decides from the bytes); '' when none. */
export function documentTypeOf(f: File): string {
  const ext = f.name.slice(f.name.lastIndexOf('.') + 1).toLowerCase();
  return DOCUMENT_TYPES[ext as keyof typeof DOCUMENT_TYPES] ?? (Object.values(DOCUMENT_TYPES) as string[]).find((t) => t === f.type) ?? '';
}

/**
 * '' when the file may be sent (the server checks the bytes again, with the same rules), else the
 * text that says why in the visitor's language: `fileType` (not an image or one of the documents;
 * the server's 415) or `fileSize` (over 5 MB; its 413).
 */
export function attachmentProblem(f: File): '' | 'fileType' | 'fileSize' {
  if (!isImageFile(f) && !documentTypeOf(f)) return 'fileType';
  return f.size > CHAT_IMAGE_MAX_BYTES ? 'fileSize' : '';
}

/** A pending message's file fields, so its chip shows at once. */
export function localFileFields(f: File): Pick<ChatMessage, 'file_name' | 'file_type' | 'file_size'> {
  return { file_name: f.name, file_type: isImageFile(f) ? f.type : documentTypeOf(f), file_size: f.size };
}

export const isDocumentMessage = (m: ChatMessage): boolean => isDocumentType(m.file_type ?? '');

/** The link that downloads a stored file under its name (the server forces the stored extension). */
export function fileUrl(base: string, m: Pick<ChatMessage, 'file_path' | 'file_name'>): string {
  return `${absolute(base, m.file_path)}?name=${encodeURIComponent(m.file_name ?? '')}`;
}

/** A document's chip: icon, name, size; a download link once stored. */
export function fileChip(base: string, m: ChatMessage): HTMLElement {
  const size = m.file_size ? formatFileSize(m.file_size) : '';
  const label = h('span', { class: 'fn' }, m.file_name || 'file');
  const inner = [icon(DOC_ICON), h('span', { class: 'fi' }, label, size && h('span', { class: 'fs' }, size))];
  if (!m.file_path) return h('span', { class: 'fc' }, ...inner);
  return h('a', { class: 'fc', href: fileUrl(base, m), target: '_blank', rel: 'noopener', download: m.file_name ?? '' }, ...inner);
}

/** Files dropped on `zone` or pasted into `input` (images from the clipboard) go to `onFile`, one at a time. */
export function acceptDropAndPaste(zone: HTMLElement, input: HTMLElement, onFile: (f: File) => void): void {
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  zone.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    zone.classList.add('dz');
  });
  zone.addEventListener('dragleave', (e) => {
    if (e.target === zone) zone.classList.remove('dz');
  });
  zone.addEventListener('drop', (e) => {
    zone.classList.remove('dz');
    const f = e.dataTransfer?.files?.[0];
    if (!f) return;
    e.preventDefault();
    onFile(f);
  });
  input.addEventListener('paste', (e) => {
    const item = Array.from(e.clipboardData?.items ?? []).find((i) => i.kind === 'file' && i.type.startsWith('image/'));
    const f = item?.getAsFile();
    if (!f) return; // text pastes as text
    e.preventDefault();
    onFile(f);
  });
}

export const FILES_CSS =
  '.fc{display:flex;align-items:center;gap:8px;padding:4px 2px;color:inherit;text-decoration:none;max-width:240px}.fc svg{width:28px;height:28px;flex:none;fill:currentColor}.fi{display:flex;flex-direction:column;min-width:0}.fn{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-weight:600}.fs{font-size:11.5px;opacity:.75}a.fc:hover .fn{text-decoration:underline}.dz{outline:2px dashed var(--c);outline-offset:-4px}';
