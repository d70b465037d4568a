import eventsSource from '../../../../shared/src/events.ts?raw';

/**
 * The socket events of Documentation > API, read from shared/src/events.ts itself (inlined at
 * build time), so the page lists exactly the vocabulary the server, console and widget use, with
 * the comment written beside each event and the payload types.
 */
export interface SocketEventDoc {
  name: string;
  description: string;
}

export function socketEvents(source: string = eventsSource): SocketEventDoc[] {
  const out: SocketEventDoc[] = [];
  // A doc comment (never spanning two), an optional `export const X = {` line, then one or two `key: 'name',` lines.
  const entry = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n(?:export const \w+ = \{\s*\n)?\s*[A-Za-z]+:\s*'([a-z.]+)',(?:\s*\n\s*[A-Za-z]+:\s*'([a-z.]+)',)?/g;
  for (const m of source.matchAll(entry)) {
    const description = (m[1] ?? '')
      .split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ');
    for (const name of [m[2], m[3]]) if (name && !out.some((e) => e.name === name)) out.push({ name, description });
  }
  return out;
}

/** The payload interfaces (`export interface ...Payload {...}` and acks), as written. */
export function payloadTypes(source: string = eventsSource): string[] {
  return [...source.matchAll(/export interface \w+ \{[\s\S]*?\n\}/g)].map((m) => m[0]);
}
