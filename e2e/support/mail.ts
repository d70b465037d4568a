import { inject } from 'vitest';

/**
 * The emails delivered to `to` through the SMTP server of the global setup (the server under
 * test has SMTP_URL pointing at it), oldest first, with quoted-printable undone (soft breaks and
 * =XX bytes, read as UTF-8).
 */
export async function mailsTo(to: string): Promise<string[]> {
  const res = await fetch(`${inject('mailUrl')}?to=${encodeURIComponent(to)}`);
  if (!res.ok) throw new Error(`the test mailbox answered ${res.status}`);
  const raws = (await res.json()) as string[];
  return raws.map((raw) => decodeQuotedPrintable(raw));
}

function decodeQuotedPrintable(raw: string): string {
  const joined = raw.replace(/=\r?\n/g, '');
  return joined.replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replace(/=/g, ''), 'hex').toString('utf8'));
}

/** The path (with query) of the newest link to `linkPath` mailed to `to`, waiting up to `ms` for it. */
export async function mailedLink(to: string, linkPath: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  const re = new RegExp(`https?://[^\\s"<]+(${linkPath.replace(/[?]/g, '\\$&')}\\?token=[A-Za-z0-9_-]+)`);
  for (;;) {
    const links = (await mailsTo(to))
      .map((raw) => re.exec(raw)?.[1])
      .filter((l): l is string => Boolean(l));
    if (links.length > 0) return links.at(-1)!;
    if (Date.now() > until) throw new Error(`no ${linkPath} link mailed to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
