import { describe, expect, it } from 'vitest';
import { SHORTCUTS, isTypingTarget, neighbour, shortcutFor } from './shortcuts';

const el = (tagName: string, extra: Record<string, unknown> = {}) => ({ tagName, ...extra }) as unknown as EventTarget;
const key = (k: string, extra: Partial<{ altKey: boolean; ctrlKey: boolean; metaKey: boolean; target: EventTarget | null }> = {}) => ({
  key: k,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  target: el('DIV'),
  ...extra,
});

describe('shortcutFor', () => {
  it('maps each listed key', () => {
    expect(shortcutFor(key('j'))).toBe('next');
    expect(shortcutFor(key('k'))).toBe('previous');
    expect(shortcutFor(key('ArrowDown', { altKey: true }))).toBe('next');
    expect(shortcutFor(key('ArrowUp', { altKey: true }))).toBe('previous');
    expect(shortcutFor(key('r'))).toBe('composer');
    expect(shortcutFor(key('e'))).toBe('resolve');
    expect(shortcutFor(key('a'))).toBe('assignMe');
    expect(shortcutFor(key('/'))).toBe('search');
    expect(shortcutFor(key('?'))).toBe('help');
    expect(shortcutFor(key('ArrowDown'))).toBeNull();
    expect(shortcutFor(key('x'))).toBeNull();
  });
  it('never fires while typing in a field or with Ctrl/Cmd', () => {
    for (const target of [el('TEXTAREA'), el('INPUT', { type: 'text' }), el('INPUT', { type: 'search' }), el('SELECT'), el('DIV', { isContentEditable: true })]) {
      expect(shortcutFor(key('j', { target }))).toBeNull();
      expect(shortcutFor(key('ArrowDown', { altKey: true, target }))).toBeNull();
    }
    expect(shortcutFor(key('j', { target: el('INPUT', { type: 'checkbox' }) }))).toBe('next');
    expect(shortcutFor(key('e', { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(key('a', { metaKey: true }))).toBeNull();
    expect(isTypingTarget(null)).toBe(false);
  });
  it('lists every action in the help table', () => {
    expect(new Set(SHORTCUTS.map((s) => s.action))).toEqual(new Set(['next', 'previous', 'composer', 'resolve', 'assignMe', 'search', 'help']));
  });
});

describe('neighbour', () => {
  const ids = ['a', 'b', 'c'];
  it('moves within the list and stops at its ends', () => {
    expect(neighbour(ids, 'a', 1)).toBe('b');
    expect(neighbour(ids, 'b', -1)).toBe('a');
    expect(neighbour(ids, 'c', 1)).toBeNull();
    expect(neighbour(ids, 'a', -1)).toBeNull();
  });
  it('starts at the first (next) or last (previous) when none is open or the open one left the list', () => {
    expect(neighbour(ids, null, 1)).toBe('a');
    expect(neighbour(ids, 'zz', -1)).toBe('c');
    expect(neighbour([], null, 1)).toBeNull();
  });
});
