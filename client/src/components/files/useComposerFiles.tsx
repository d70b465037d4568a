import { DOCUMENT_ACCEPT } from '@parley/shared';
import { type ChangeEvent, type ClipboardEvent, type DragEvent, useRef, useState } from 'react';
import { attachmentProblem, isImageFile } from './attachments';
import { FileChip } from './FileChip';

export { isImageFile };

/**
 * The console composer's attachments beyond SPEC's image button (issue 13): a separate "Attach
 * file" control for documents, drag and drop of images or documents onto the composer, and
 * pasting an image. The chosen file goes to the composer's own attachment (`onFile`).
 */
export function useComposerFiles({ enabled, onFile }: { enabled: boolean; onFile: (f: File) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [dropping, setDropping] = useState(false);
  const take = (f: File | null | undefined) => {
    if (!f || !enabled) return;
    const problem = attachmentProblem(f);
    if (problem) window.alert(problem);
    else onFile(f);
  };
  const onChange = (e: ChangeEvent<HTMLInputElement>) => {
    take(e.target.files?.[0]);
    e.target.value = '';
  };
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  return {
    control: enabled ? (
      <>
        <input ref={input} type="file" accept={DOCUMENT_ACCEPT} className="sr-only" tabIndex={-1} aria-hidden="true" onChange={onChange} data-testid="attach-file-input" />
        <button type="button" className="icon-btn" aria-label="Attach file" title="Attach file (PDF, TXT, CSV, DOCX, XLSX)" onClick={() => input.current?.click()}>
          <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
            <path d="M21.4 11.1 12.2 20.3a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
          </svg>
        </button>
      </>
    ) : null,
    formProps: {
      className: dropping ? 'composer-dropping' : undefined,
      onDragOver: (e: DragEvent) => {
        if (!enabled || !hasFiles(e)) return;
        e.preventDefault();
        setDropping(true);
      },
      onDragLeave: (e: DragEvent) => {
        if (e.currentTarget === e.target) setDropping(false);
      },
      onDrop: (e: DragEvent) => {
        setDropping(false);
        const f = e.dataTransfer.files?.[0];
        if (!f || !enabled) return;
        e.preventDefault();
        take(f);
      },
    },
    onPaste: (e: ClipboardEvent) => {
      const item = Array.from(e.clipboardData.items).find((i) => i.kind === 'file' && i.type.startsWith('image/'));
      const f = item?.getAsFile();
      if (!f || !enabled) return; // text pastes as text
      e.preventDefault();
      take(f);
    },
    /** The chosen document with a Remove button (an image keeps the composer's own preview). */
    chip: (f: File | null, remove: () => void) =>
      f && !isImageFile(f) ? (
        <div className="attach-preview">
          <FileChip name={f.name} size={f.size} />
          <button type="button" className="btn btn-secondary btn-sm" onClick={remove}>
            Remove
          </button>
        </div>
      ) : null,
  };
}
