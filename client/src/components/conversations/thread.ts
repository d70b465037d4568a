import type { ChatMessage } from '../../stores/conversationLogic';

/**
 * The thread as it is drawn (issue 16 "Working faster"): a day separator before the first
 * message of each local day, system lines on their own, and messages grouped by sender: a run
 * of messages from the same sender (the visitor, one agent, the assistant) within a few
 * minutes shows the sender's name once, on its first message.
 */
export type ThreadItem =
  | { kind: 'day'; key: string; label: string }
  | { kind: 'system'; key: string; message: ChatMessage }
  | { kind: 'message'; key: string; message: ChatMessage; firstOfGroup: boolean; lastOfGroup: boolean };

/** Messages further apart than this start a new group even from the same sender. */
export const GROUP_GAP_MS = 5 * 60_000;

export const isSystem = (m: { sender_type: string }) => m.sender_type === 'system';

/** Who sent it, for grouping: an agent by id (name when the id is unknown), else the sender type. */
function senderKey(m: ChatMessage): string {
  if (m.sender_type === 'user') return `user:${m.author_id ?? m.author_name ?? ''}`;
  return m.sender_type;
}

function dayKey(d: Date): string {
  return `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
}

/** 'Today', 'Yesterday', else e.g. 'Monday, March 4' (the year too when not this year). */
export function dayLabel(d: Date, now: Date = new Date()): string {
  const today = dayKey(now);
  const y = new Date(now);
  y.setDate(now.getDate() - 1);
  const key = dayKey(d);
  if (key === today) return 'Today';
  if (key === dayKey(y)) return 'Yesterday';
  return d.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', ...(d.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) });
}

const itemKey = (m: ChatMessage) => (m.pending && m.client_id ? m.client_id : String(m.id));

export function buildThread(messages: ChatMessage[], now: Date = new Date()): ThreadItem[] {
  const items: ThreadItem[] = [];
  let lastDay = '';
  let prev: ChatMessage | null = null;
  let prevItem: Extract<ThreadItem, { kind: 'message' }> | null = null;
  for (const m of messages) {
    const at = new Date(m.created_at);
    const valid = !Number.isNaN(at.getTime());
    const day = valid ? dayKey(at) : lastDay;
    if (valid && day !== lastDay) {
      items.push({ kind: 'day', key: `day-${day}`, label: dayLabel(at, now) });
      lastDay = day;
      prev = null;
    }
    if (isSystem(m)) {
      items.push({ kind: 'system', key: itemKey(m), message: m });
      prev = null;
      if (prevItem) prevItem.lastOfGroup = true;
      prevItem = null;
      continue;
    }
    const sameGroup =
      prev !== null && senderKey(prev) === senderKey(m) && Math.abs(Date.parse(m.created_at) - Date.parse(prev.created_at)) <= GROUP_GAP_MS;
    if (!sameGroup && prevItem) prevItem.lastOfGroup = true;
    const item = { kind: 'message' as const, key: itemKey(m), message: m, firstOfGroup: !sameGroup, lastOfGroup: true };
    if (sameGroup && prevItem) prevItem.lastOfGroup = false;
    items.push(item);
    prev = m;
    prevItem = item;
  }
  return items;
}

/** Cuts a search snippet into plain and highlighted parts from `[start, end)` ranges. */
export function highlightParts(text: string, ranges: readonly (readonly [number, number])[] | undefined): { text: string; hit: boolean }[] {
  const valid = (ranges ?? [])
    .filter((r) => Array.isArray(r) && Number.isInteger(r[0]) && Number.isInteger(r[1]) && r[0] < r[1])
    .map(([s, e]) => [Math.max(0, s), Math.min(text.length, e)] as const)
    .filter(([s, e]) => s < e)
    .sort((a, b) => a[0] - b[0]);
  const parts: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const [s, e] of valid) {
    if (e <= at) continue;
    const start = Math.max(s, at);
    if (start > at) parts.push({ text: text.slice(at, start), hit: false });
    const last = parts.at(-1);
    if (last?.hit && start === at) last.text += text.slice(start, e);
    else parts.push({ text: text.slice(start, e), hit: true });
    at = e;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return parts;
}
