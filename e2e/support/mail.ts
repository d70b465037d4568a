import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

/**
 * The emails the server under test wrote for `to` (no SMTP in the journeys: DATA_DIR/mail/*.eml),
 * quoted-printable soft breaks undone, oldest first.
 */
export function mailsTo(to: string): string[] {
  const dir = path.join(inject('dataDir'), 'mail');
  if (!fs.existsSync(dir)) return [];
  const pattern = new RegExp(`^To: .*${to.replace(/[.+]/g, '\\$&')}`, 'mi');
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.eml'))
    .map((n) => ({ n, at: fs.statSync(path.join(dir, n)).mtimeMs }))
    .sort((a, b) => a.at - b.at)
    .map(({ n }) => fs.readFileSync(path.join(dir, n), 'utf8').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))))
    .filter((raw) => pattern.test(raw));
}

/** The path (with query) of the newest link to `linkPath` mailed to `to`, waiting up to `ms` for it. */
export async function mailedLink(to: string, linkPath: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  const re = new RegExp(`https?://[^\\s"<]+(${linkPath.replace(/[?]/g, '\\$&')}\\?token=[A-Za-z0-9_-]+)`);
  for (;;) {
    const links = mailsTo(to)
      .map((raw) => re.exec(raw)?.[1])
      .filter((l): l is string => Boolean(l));
    if (links.length > 0) return links.at(-1)!;
    if (Date.now() > until) throw new Error(`no ${linkPath} link mailed to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
