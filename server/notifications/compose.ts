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

const HEADINGS: Record<NotificationKind, { subject: string; intro: string }> = {
  newChat: { subject: 'New chat from', intro: 'A visitor started a new chat.' },
  offlineMessage: { subject: 'Offline message from', intro: 'A visitor left a message while no agent was online.' },
  missedChat: { subject: 'Missed chat from', intro: 'A visitor is waiting: no agent has answered yet.' },
};

/** Header values are single lines: a name with a newline must not start a new header or body. */
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

const time = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** The owner's email: a plain-text part and an HTML part with every visitor-written value escaped. */
export function composeEmail(e: NotificationEmail): Omit<MailMessage, 'messageId'> {
  const h = HEADINGS[e.kind];
  const who = oneLine(e.visitor.name) || oneLine(e.visitor.email) || 'a visitor';
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
  return { to: e.to, subject: `${h.subject} ${who}`.slice(0, 200), text, html, replyTo: e.replyTo };
}
