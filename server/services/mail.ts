import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string | undefined;
  /** A stable Message-ID, so a resend after an unknown outcome is recognisable as the same email. */
  messageId?: string | undefined;
}

export interface SentMail {
  messageId: string;
  /** Where the .eml was written when no SMTP server is configured. */
  file?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

export interface MailConfig {
  smtpUrl: string | undefined;
  mailFrom: string;
  dataDir: string;
}

/** Where emails are written when no SMTP server is configured. */
export const mailDir = (dataDir: string): string => path.join(dataDir, 'mail');

/** The addresses in an .eml's To and Cc headers, lower-cased. */
function recipientsOf(eml: string): string[] {
  const head = eml.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const lines = unfolded.split(/\r?\n/).filter((l) => /^(to|cc):/i.test(l));
  return lines.flatMap((l) => l.match(/[^\s<>,;:"]+@[^\s<>,;:"]+/g) ?? []).map((a) => a.toLowerCase());
}

/** Deletes the written emails (DATA_DIR/mail/*.eml) sent to any of `addresses` (account deletion). */
export async function removeMailTo(dataDir: string, addresses: string[]): Promise<number> {
  const wanted = new Set(addresses.map((a) => a.toLowerCase()));
  if (wanted.size === 0) return 0;
  const dir = mailDir(dataDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.eml')) continue;
    const file = path.join(dir, name);
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    if (recipientsOf(text).some((a) => wanted.has(a))) {
      await fs.rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}

/** nodemailer, loaded at the first email when the app is built in a test; `npm start` loads it before listening (index.ts). */
export const loadNodemailer = () => import('nodemailer');

/**
 * SMTP through nodemailer with SMTP_URL; without it every email is written to DATA_DIR/mail/ as
 * an .eml file (and its path logged), so a first-time user can read what would have been sent.
 */
export function createMailer(config: MailConfig, log: FastifyBaseLogger): Mailer {
  let transport: Promise<Transporter> | undefined;
  const open = (options: Parameters<typeof import('nodemailer').createTransport>[0]) =>
    (transport ??= loadNodemailer().then((m) => m.default.createTransport(options)));
  const close = () => void transport?.then((t) => t.close(), () => {});
  if (config.smtpUrl) {
    const smtpUrl = config.smtpUrl;
    return {
      async send(message) {
        const info = await (await open(smtpUrl)).sendMail({ from: config.mailFrom, ...message });
        return { messageId: info.messageId };
      },
      close,
    };
  }
  const dir = mailDir(config.dataDir);
  return {
    async send(message) {
      const info = await (await open({ streamTransport: true, buffer: true, newline: 'windows' })).sendMail({ from: config.mailFrom, ...message });
      await fs.mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${stamp}-${Math.random().toString(36).slice(2, 8)}.eml`);
      await fs.writeFile(file, info.message as Buffer);
      log.info({ file, to: message.to, subject: message.subject }, 'email written (no SMTP_URL configured)');
      return { messageId: info.messageId, file };
    },
    close,
  };
}
