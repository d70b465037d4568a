import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, NOT_AN_IMAGE } from '@parley/shared';
import { type ChangeEvent, type KeyboardEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { Icon } from '../icons';

interface Props {
  draft: string;
  onDraft: (v: string) => void;
  image: File | null;
  onImage: (f: File | null) => void;
  sending: boolean;
  onSend: () => void;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  /** The plan does not include the assistant: nothing can be sent. */
  locked?: boolean;
}

/** Text box, image attach with preview and Remove, send button. Enter sends, Shift+Enter breaks the line. */
export function Composer({ draft, onDraft, image, onImage, sending, onSend, inputRef, locked = false }: Props) {
  const fileRef = useRef<HTMLInputElement>(null);
  const [preview, setPreview] = useState('');
  useEffect(() => {
    if (!image) return setPreview('');
    const url = URL.createObjectURL(image);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [image]);

  const canSend = !sending && !locked && (draft.trim() !== '' || image !== null);

  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (!file.type.startsWith('image/')) return window.alert(NOT_AN_IMAGE);
    if (file.size > CHAT_IMAGE_MAX_BYTES) return window.alert(CHAT_IMAGE_TOO_LARGE);
    onImage(file);
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      if (canSend) onSend();
    }
  };

  return (
    <div className="cb-composer">
      {preview && (
        <div className="cb-attach">
          <img src={preview} alt="Attachment preview" />
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => onImage(null)} disabled={sending}>
            Remove
          </button>
        </div>
      )}
      <form
        className="cb-compose-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSend) onSend();
        }}
      >
        <input ref={fileRef} type="file" accept="image/*" className="cb-sr" tabIndex={-1} aria-hidden="true" onChange={pick} />
        <button type="button" className="icon-btn cb-attach-btn" aria-label="Attach image" title="Attach image" disabled={sending || locked} onClick={() => fileRef.current?.click()}>
          <Icon.image />
        </button>
        <textarea
          ref={inputRef}
          className="input cb-input"
          rows={1}
          placeholder={locked ? 'The AI assistant is part of the Professional plan' : 'Ask the AI assistant anything...'}
          aria-label="Message to the AI assistant"
          value={draft}
          disabled={sending || locked}
          onChange={(e) => onDraft(e.target.value)}
          onKeyDown={onKey}
        />
        <button type="submit" className="btn btn-primary cb-send" aria-label="Send message" disabled={!canSend}>
          <Icon.send />
        </button>
      </form>
    </div>
  );
}
