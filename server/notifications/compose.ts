import type { MailMessage } from '../services/mail.js';
import { escapeHtml } from '../services/html.js';

export type NotificationKind = 'newChat' | 'offlineMessage' | 'missedChat';

export interface EmailLine {
  author: string;
  text: string;
  at: Date;
}

export interface NotificationEmail {
  kind: NotificationKind;
  to: string;
  visitor: { id: string; name: string; email: string; page: string };
  /** Oldest first. */
  lines: EmailLine[];
  link: string;
  replyTo?: string | undefined;
}

const HEADINGS: Record<NotificationKind, { subject: string; intro: string; label: string }> = {
  newChat: { subject: 'New chat from', intro: 'A visitor started a new chat.', label: 'new chat' },
  offlineMessage: { subject: 'Offline message from', intro: 'A visitor left a message while no agent was online.', label: 'offline message' },
  missedChat: { subject: 'Missed chat from', intro: 'A visitor is waiting: no agent has answered yet.', label: 'missed chat' },
};

/** The longest visitor-chosen text a subject carries (characters, before the quotes). */
export const SUBJECT_FIELD_MAX = 32;

/**
 * Visitor-chosen text (a name, an email) as a subject may carry it: one line of visible
 * characters (no control, format, bidi or line-separator characters, so no header injection and
 * no reordered text), quotes inside made single, cut to `max` characters with an ellipsis, and
 * always in double quotes, so it never reads as Parley's own words.
 */
export function quotedField(value: string, max = SUBJECT_FIELD_MAX): string {
  const clean = value
    .normalize('NFKC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]+/gu, ' ')
    .replace(/["\u201C\u201D\u201E\u00AB\u00BB]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  const cut = chars.length > max ? `${chars.slice(0, max - 1).join('').trimEnd()}\u2026` : clean;
  return `"${cut}"`;
}

/** A notification's subject: fixed words, and the visitor's name (or email) only quoted. */
export function notificationSubject(kind: NotificationKind, visitor: { name: string; email: string }): string {
  const who = quotedField(visitor.name) !== '""' ? quotedField(visitor.name) : quotedField(visitor.email);
  return who === '""' ? `${HEADINGS[kind].subject} a visitor` : `${HEADINGS[kind].subject} visitor ${who}`;
}

/** How a kind reads in a digest's list. */
export const kindLabel = (kind: NotificationKind) => HEADINGS[kind].label;

const time = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** The owner's email: a plain-text part and an HTML part with every visitor-written value escaped. */
export function composeEmail(e: NotificationEmail): Omit<MailMessage, 'messageId'> {
  const h = HEADINGS[e.kind];
  const details: [string, string][] = [
    ['Visitor', e.visitor.name || 'Unknown'],
    ['Email', e.visitor.email || 'Not given'],
    ['Page', e.visitor.page || 'Unknown'],
  ];
  const text = [
    h.intro,
    '',
    ...details.map(([k, v]) => `${k}: ${v}`),
    '',
    'Last messages:',
    ...e.lines.map((l) => `[${time(l.at)} UTC] ${l.author}: ${l.text}`),
    '',
    `Open the conversation: ${e.link}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(h.intro)}</p>`,
    '<table>',
    ...details.map(([k, v]) => `<tr><th align="left">${k}</th><td>${escapeHtml(v)}</td></tr>`),
    '</table>',
    '<h3>Last messages</h3>',
    '<ul>',
    ...e.lines.map((l) => `<li><small>${time(l.at)} UTC</small> <b>${escapeHtml(l.author)}</b>: ${escapeHtml(l.text)}</li>`),
    '</ul>',
    `<p><a href="${escapeHtml(e.link)}">Open the conversation</a></p>`,
    '</body></html>',
  ].join('\n');
  return { to: e.to, subject: notificationSubject(e.kind, e.visitor), text, html, replyTo: e.replyTo };
}
