import { formatFileSize } from '@parley/shared';
import type { ReactNode } from 'react';
import { storageUrl } from '../../lib/api';
import './files.css';

function DocIcon() {
  return (
    <svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" />
      <polyline points="14 2 14 8 20 8" />
    </svg>
  );
}

/**
 * A document in a conversation (issue 13): icon, name and size; once stored, a link that downloads
 * it under its name (the server serves documents as attachments and keeps the stored extension).
 */
export function FileChip({ name, size, filePath, children }: { name: string; size: number; filePath?: string; children?: ReactNode }) {
  const body = (
    <>
      <DocIcon />
      <span className="file-chip-text">
        <span className="file-chip-name">{name || 'file'}</span>
        {size > 0 && <span className="file-chip-size">{formatFileSize(size)}</span>}
      </span>
    </>
  );
  if (!filePath || /^(blob:|data:)/.test(filePath)) {
    return (
      <span className="file-chip">
        {body}
        {children}
      </span>
    );
  }
  return (
    <a className="file-chip" href={`${storageUrl(filePath)}?name=${encodeURIComponent(name)}`} download={name} title={`Download ${name}`}>
      {body}
    </a>
  );
}
