import { escapeHtml } from '../../services/html.js';
import type { MailMessage } from '../../services/mail.js';

type Email = Omit<MailMessage, 'messageId'>;

function compose(to: string, subject: string, paragraphs: string[], link?: { label: string; url: string }): Email {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : []), ''].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(link ? [`<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`] : []),
    '</body></html>',
  ].join('\n');
  return { to, subject, text, html };
}

/** To a user whose sign-in is being guessed: what happened, what still works, what to do. */
export function composeLoginAttackEmail(e: { to: string; name: string; failures: number; at: Date; link: string }): Email {
  return compose(
    e.to,
    'Someone is trying to sign in to your Parley account',
    [
      `Hello ${e.name.trim() || 'there'},`,
      `There were ${e.failures} failed attempts to sign in to your Parley account with this email address (the latest at ${e.at.toISOString().replace('T', ' ').slice(0, 16)} UTC).`,
      'Sign-ins from the addresses that keep failing are slowed down. You can still sign in as usual from a browser you have signed in with before.',
      'If this was not you, choose a new, unique password in Settings.',
    ],
    { label: 'Open Settings', url: e.link },
  );
}

/** To the new address of an email change: the link that applies it. */
export function composeEmailChangeEmail(e: { to: string; name: string; link: string; hours: number }): Email {
  return compose(
    e.to,
    'Confirm your new Parley sign-in email',
    [
      `Hello ${e.name.trim() || 'there'},`,
      'Someone asked to use this address to sign in to their Parley account. Open the link below to confirm it; until then the account keeps its current email.',
      `The link works for ${e.hours} hours. If you did not ask for this, ignore this email.`,
    ],
    { label: 'Confirm this email', url: e.link },
  );
}

/** To a user who asked to reset their password: the single-use link. */
export function composePasswordResetEmail(e: { to: string; name: string; link: string; minutes: number }): Email {
  return compose(
    e.to,
    'Reset your Parley password',
    [
      `Hello ${e.name.trim() || 'there'},`,
      'Someone asked to reset the password of your Parley account. Open the link below to choose a new one; every device signed in to your account will be signed out.',
      `The link works once, for ${e.minutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.`,
    ],
    { label: 'Choose a new password', url: e.link },
  );
}

/** To a new owner: the link that verifies their email address. */
export function composeVerifyEmail(e: { to: string; name: string; link: string; hours: number }): Email {
  return compose(
    e.to,
    'Verify your Parley email address',
    [
      `Hello ${e.name.trim() || 'there'},`,
      'Welcome to Parley. Please confirm that this address is yours: payments and webhooks need a verified email. Everything else works already.',
      `The link works for ${e.hours} hours. You can send a new one from Settings > Security.`,
    ],
    { label: 'Verify my email', url: e.link },
  );
}
