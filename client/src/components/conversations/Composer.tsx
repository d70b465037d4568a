import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE } from '@parley/shared';
import { type ChangeEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { Icon } from '../icons';
import { useInboxComposer } from '../inbox/useInboxComposer';
import { isImageFile, useComposerFiles } from '../files/useComposerFiles';

/** The reply box's id: the keyboard shortcut that focuses the composer finds it by this. */
export const COMPOSER_INPUT_ID = 'mc-composer-input';

interface Props {
  disabled: boolean;
  canAttach: boolean;
  onSend: (text: string, image: File | null) => void;
  onTyping?: (typing: boolean) => void;
  /** The open conversation, for private notes and the canned replies' {{visitor.name}}. */
  visitorId?: string;
  visitorName?: string;
}

/** Text box, attach-image (5 MB), preview with Remove, send. Enter sends, Shift+Enter adds a line. */
export function Composer({ disabled, canAttach, onSend, onTyping, visitorId, visitorName }: Props) {
  const [text, setText] = useState('');
  const textarea = useRef<HTMLTextAreaElement>(null);
  const inbox = useInboxComposer({ text, setText, textarea, visitorId, visitorName });
  const [image, setImage] = useState<File | null>(null);
  const [previewUrl, setPreviewUrl] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  const typingTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const files = useComposerFiles({ enabled: canAttach && !inbox.isNote && !disabled, onFile: setImage });
  const typingOn = useRef(false);

  useEffect(() => {
    if (!image) {
      setPreviewUrl('');
      return;
    }
    const url = URL.createObjectURL(image);
    setPreviewUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [image]);

  useEffect(() => () => clearTimeout(typingTimer.current), []);

  const canSend = !disabled && (text.trim().length > 0 || image !== null);

  const stopTyping = () => {
    clearTimeout(typingTimer.current);
    if (typingOn.current) {
      typingOn.current = false;
      onTyping?.(false);
    }
  };

  const submit = () => {
    if (!canSend) return;
    if (inbox.isNote) {
      void inbox.sendNote(text.trim()).then((ok) => ok && setText(''));
      stopTyping();
      return;
    }
    onSend(text.trim(), image);
    setText('');
    setImage(null);
    if (fileInput.current) fileInput.current.value = '';
    stopTyping();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (inbox.onKeyDown(e)) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  const onChange = (e: ChangeEvent<HTMLTextAreaElement>) => {
    setText(e.target.value);
    if (inbox.isNote) return; // the visitor does not see a note being typed
    if (!typingOn.current && e.target.value) {
      typingOn.current = true;
      onTyping?.(true);
    }
    clearTimeout(typingTimer.current);
    typingTimer.current = setTimeout(stopTyping, 2000);
  };

  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    if (!file.type.startsWith('image/')) {
      window.alert('Please select an image file');
      e.target.value = '';
      return;
    }
    if (file.size > CHAT_IMAGE_MAX_BYTES) {
      window.alert(CHAT_IMAGE_TOO_LARGE);
      e.target.value = '';
      return;
    }
    setImage(file);
  };

  return (
    <form
      {...files.formProps}
      className={`composer${inbox.isNote ? ' composer-note' : ''}${files.formProps.className ? ` ${files.formProps.className}` : ''}`}
      aria-label="Reply"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {inbox.picker}
      {inbox.toggle}
      {inbox.noteError && (
        <p className="field-error" role="alert">
          {inbox.noteError}
        </p>
      )}
      {files.chip(image, () => setImage(null))}
      {image && previewUrl && isImageFile(image) && (
        <div className="attach-preview">
          <img src={previewUrl} alt="Selected attachment preview" />
          <span className="muted" style={{ fontSize: 13, maxWidth: 180, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
            {image.name}
          </span>
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            onClick={() => {
              setImage(null);
              if (fileInput.current) fileInput.current.value = '';
            }}
          >
            Remove
          </button>
        </div>
      )}
      <div className="composer-row">
        {canAttach && !inbox.isNote && (
          <>
            <input ref={fileInput} type="file" accept="image/*" className="sr-only" tabIndex={-1} aria-hidden="true" onChange={onFile} data-testid="attach-input" />
            <button type="button" className="icon-btn" aria-label="Attach image" disabled={disabled} onClick={() => fileInput.current?.click()}>
              <Icon.image />
            </button>
            {files.control}
          </>
        )}
        <textarea ref={textarea} id={COMPOSER_INPUT_ID} className="input" rows={1} {...inbox.textareaProps} value={text} disabled={disabled} onChange={onChange} onKeyDown={onKeyDown} onPaste={files.onPaste} />
        <button type="submit" className="btn btn-primary btn-md" aria-label={inbox.isNote ? 'Save private note' : 'Send message'} disabled={!canSend}>
          <Icon.send />
        </button>
      </div>
    </form>
  );
}
