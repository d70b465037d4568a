import { thumbnailPathOf } from '@parley/shared';
import { useState } from 'react';
import { storageUrl } from '../../lib/api';
import './storage.css';

/**
 * A chat image as the console shows it: the bounded thumbnail stored beside it, which opens
 * the original in a new tab on click. A local preview (still sending) shows as it is; a file
 * stored before thumbnails existed falls back to the original.
 */
export function MessageImage({ filePath, alt }: { filePath: string; alt: string }) {
  const original = storageUrl(filePath);
  const local = /^(blob:|data:)/.test(filePath);
  // Keyed by path: the same item goes from its local preview to the stored file.
  const [noThumbnail, setNoThumbnail] = useState<string | null>(null);
  const src = local || noThumbnail === filePath ? original : storageUrl(thumbnailPathOf(filePath));
  const img = <img className="msg-image" src={src} alt={alt} loading="lazy" onError={() => src !== original && setNoThumbnail(filePath)} />;
  if (local) return img;
  return (
    <a className="msg-image-link" href={original} target="_blank" rel="noopener noreferrer" title="Open the full image">
      {img}
    </a>
  );
}
