/** The message center's keyboard shortcuts (issue 16): one table for the handler and the `?` dialog. */
export type ShortcutAction = 'next' | 'previous' | 'composer' | 'resolve' | 'assignMe' | 'search' | 'help';

export const SHORTCUTS: { action: ShortcutAction; keys: string[]; label: string }[] = [
  { action: 'next', keys: ['j', 'Alt + ↓'], label: 'Next conversation' },
  { action: 'previous', keys: ['k', 'Alt + ↑'], label: 'Previous conversation' },
  { action: 'composer', keys: ['r'], label: 'Reply: focus the message box' },
  { action: 'resolve', keys: ['e'], label: 'Resolve the conversation (reopen when resolved)' },
  { action: 'assignMe', keys: ['a'], label: 'Assign the conversation to me' },
  { action: 'search', keys: ['/'], label: 'Search' },
  { action: 'help', keys: ['?'], label: 'Show these shortcuts' },
];

interface KeyLike {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  target: EventTarget | null;
  isComposing?: boolean;
}

/** True when the key goes to a field (typing), where no shortcut may fire. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as HTMLElement).tagName !== 'string') return false;
  const el = target as HTMLElement;
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') {
    const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(type);
  }
  return el.isContentEditable === true;
}

/** The action a key press asks for, or null (typing in a field, a modifier chord, another key). */
export function shortcutFor(e: KeyLike): ShortcutAction | null {
  if (e.isComposing || e.ctrlKey || e.metaKey) return null;
  if (isTypingTarget(e.target)) return null;
  if (e.altKey) {
    if (e.key === 'ArrowDown') return 'next';
    if (e.key === 'ArrowUp') return 'previous';
    return null;
  }
  switch (e.key) {
    case 'j':
      return 'next';
    case 'k':
      return 'previous';
    case 'r':
      return 'composer';
    case 'e':
      return 'resolve';
    case 'a':
      return 'assignMe';
    case '/':
      return 'search';
    case '?':
      return 'help';
    default:
      return null;
  }
}

/** The visitor to open after `current` in `ids` (`step` 1 next, -1 previous); the first when none is open. */
export function neighbour(ids: string[], current: string | null, step: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current ? ids.indexOf(current) : -1;
  if (at === -1) return step === 1 ? ids[0]! : ids[ids.length - 1]!;
  const next = at + step;
  return next < 0 || next >= ids.length ? null : ids[next]!;
}
