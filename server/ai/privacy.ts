import { createRequire } from 'node:module';
import type Nlp from 'compromise';
import { fold, terms } from './normalize.js';

const require = createRequire(import.meta.url);
// Loaded at the first name search (learning from a reply), not at start: compromise builds its
// English lexicon when loaded, which costs every start time and memory for a feature used later.
let nlp: typeof Nlp | undefined;

/**
 * What learning may keep of an agent's reply: only what is safe to tell any other visitor.
 * A reply is cut into sentences; a salutation loses its name ("Hi Carol!" -> dropped), and a
 * sentence that carries the visitor's own data (a name, an email, a phone number, a link with a
 * token or a query string, a number that looks like a code, an order id, an address) is dropped
 * whole: a half-redacted sentence ("your code is [...]") is no answer to anyone. When what is
 * left is not the substance of the reply, nothing is learned.
 * Person names come from `compromise` (a small English NLP library) plus what the
 * conversation knows: the visitor's name and the names they gave in their messages.
 */

export interface PrivateContext {
  /** The visitor's name as stored, and any name they gave in the conversation. */
  names?: string[];
  /** The visitor's email, phone... as stored: never reused, whatever their shape. */
  values?: string[];
}

export interface GenericText {
  text: string;
  /** How many private details (sentences or names) were removed. */
  removed: number;
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/u;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"']+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\/[^\s<>"']*/giu;
/** Phone-like: 7+ digits with the usual separators, optionally international. */
const PHONE = /(?:\+|\b00)?\d[\d\s().-]{5,}\d/;
/** A run of 4+ digits that is not an amount of money ("$1500", "1,500 EUR" are prices, not codes). */
const LONG_NUMBER = /(?<![$€£¥\d.,])\b\d{4,}\b(?!\s?(?:€|eur|usd|gbp|dollars?|euros?)\b)/iu;
/** A code mixing letters and digits: "A10234", "XK7-22Q", "9f8a7b6c" (not "3pm", "24h", "5kg"). */
const MIXED_CODE = /\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]{2,}(?:-[A-Za-z0-9]+)*\b/g;
const HARMLESS_MIXED = /^(?:\d{1,2}(?:am|pm|h|hrs?|min|mins|s|st|nd|rd|th|d|x|kg|g|mg|ml|l|cm|mm|m|km|gb|mb|tb|k|in|ft|lbs?|oz|mp|p)|[a-z]{1,3}\d{1,2}|mp3|mp4|4k|3d|2fa|covid-19)$/i;
/** "order #1234", "#A-1002", "ticket no. 55" */
const ORDER_ID = /#\s?[A-Za-z0-9-]{3,}|\b(?:order|ticket|case|invoice|booking|reservation|tracking|reference|ref|account|member|customer|commande|pedido|bestellung)\s*(?:no\.?|number|num|id|#|nr\.?|n°|:)\s*[A-Za-z0-9-]{3,}/iu;
const STREET =
  /\b\d{1,5}[a-z]?,?\s+(?:[\p{L}'.-]+\s+){0,4}(?:street|st|avenue|ave|road|rd|lane|ln|boulevard|blvd|drive|dr|way|court|ct|place|pl|square|sq|terrace|close|crescent|highway|hwy|parkway|pkwy)\b\.?|\b(?:rue|avenue|boulevard|chemin|calle|avenida|plaza|paseo|via|viale|piazza)\s+(?:[\p{L}'.-]+\s+){0,4}\d{0,5}|\b[\p{L}-]+(?:stra(?:ss|ß)e|str\.|weg|platz|gasse|allee)\s+\d{1,4}[a-z]?\b/iu;
/** UK, Canadian and Dutch postcodes (5-digit ones are caught as long numbers). */
const POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b|\b\d{4}\s?[A-Z]{2}\b/;
/** Greeting or thanks at the start of a sentence, then (SALUTATION_NAME) a name: "Hi Carol,", "Thanks, Mr Smith!". */
const SALUTATION =
  /^\s*(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening)|thanks|thank you|sure|ok|okay|of course|no problem|welcome|bonjour|salut|hola|hallo)\b[\s,]*/i;
const SALUTATION_NAME = /^(?:(?:[Mm](?:r|rs|s|iss|x)|[Dd]r)\.?\s+)?\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)?(?=\s*[,!.:;-]|\s*$)/u;

/** The sentence without the name its salutation carries ("Hi Carol, we open" -> "Hi, we open"), or undefined. */
function withoutSalutationName(s: string): string | undefined {
  const greeting = SALUTATION.exec(s);
  if (!greeting) return undefined;
  const rest = s.slice(greeting[0].length);
  const name = SALUTATION_NAME.exec(rest);
  if (!name) return undefined;
  const after = rest.slice(name[0].length).replace(/^\s*[,:;-]?\s*/, '');
  const head = greeting[0].replace(/[\s,]+$/, '');
  return after ? `${head}${/^[!.?]/.test(after) ? '' : ', '}${after}`.trim() : head;
}

/** Whether a link is private: a query string or fragment, or a path segment that looks like a token. */
function privateUrl(url: string): boolean {
  if (/[?#]/.test(url) || /@/.test(url)) return true;
  const path = url.replace(/^(?:https?:\/\/)?[^/]+/i, '');
  return path.split(/[/=&;]/).some((seg) => seg.length >= 16 || (/\d/.test(seg) && /[a-z]/i.test(seg) && seg.length >= 6) || /^\d{4,}$/.test(seg));
}

function hasPrivateUrl(text: string): boolean {
  for (const m of text.matchAll(URL_RE)) if (privateUrl(m[0].replace(/[.,;:!?)]+$/, ''))) return true;
  return false;
}

function hasCode(text: string): boolean {
  const withoutUrls = text.replace(URL_RE, ' ');
  if (LONG_NUMBER.test(withoutUrls)) return true;
  for (const m of withoutUrls.matchAll(MIXED_CODE)) if (!HARMLESS_MIXED.test(m[0])) return true;
  return false;
}

function hasPhone(text: string): boolean {
  const m = PHONE.exec(text.replace(URL_RE, ' '));
  return !!m && m[0].replace(/\D/g, '').length >= 7;
}

/** Person names compromise finds, and names the visitor gave ("I'm Carol", "my name is Carol Jones"). */
export function peopleIn(text: string): string[] {
  nlp ??= require('compromise') as typeof Nlp;
  const found = (nlp(text).people().out('array') as string[]).map((n) => n.replace(/[^\p{L}\s'-]/gu, '').trim());
  const intro = /\b(?:my name is|my name's|i am|i'm|this is|it's|call me|je m'appelle|me llamo|ich hei(?:ss|ß)e)\s+(\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)?)/gu;
  for (const m of text.matchAll(intro)) found.push(m[1]!);
  return found.filter((n) => n.length >= 2);
}

/** Name parts worth matching on their own ("Carol Jones" -> carol, jones; "Mrs. Patel" -> patel). */
function nameParts(names: string[]): string[] {
  const parts = new Set<string>();
  for (const n of names) {
    for (const p of fold(n).split(' ')) if (p.length >= 2 && !/^(mr|mrs|ms|miss|dr|mx|the|and|of|de|la|van|von)$/.test(p)) parts.add(p);
  }
  return [...parts];
}

function mentions(text: string, parts: string[]): boolean {
  if (parts.length === 0) return false;
  const words = new Set(fold(text).split(' '));
  return parts.some((p) => words.has(p));
}

function containsValue(text: string, values: string[]): boolean {
  const lower = text.toLowerCase();
  const digits = text.replace(/\D/g, '');
  return values.some((v) => {
    const value = v.trim().toLowerCase();
    if (value.length < 3) return false;
    if (lower.includes(value)) return true;
    const d = value.replace(/\D/g, '');
    return d.length >= 6 && digits.includes(d);
  });
}

/** Why a sentence may not be reused, or undefined when it is safe. */
export function privateDetail(sentence: string, ctx: PrivateContext = {}): string | undefined {
  if (EMAIL.test(sentence)) return 'email';
  if (hasPrivateUrl(sentence)) return 'link';
  if (ORDER_ID.test(sentence)) return 'order id';
  if (STREET.test(sentence) || POSTCODE.test(sentence)) return 'address';
  if (hasPhone(sentence)) return 'phone';
  if (hasCode(sentence)) return 'code';
  if (containsValue(sentence, ctx.values ?? [])) return 'visitor data';
  if (mentions(sentence, nameParts([...(ctx.names ?? []), ...peopleIn(sentence)]))) return 'name';
  return undefined;
}

/** Sentences, keeping their end punctuation; URLs and decimals are not cut. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(¿¡])/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

const contentWeight = (s: string) => terms(s).length;

/**
 * The reply as it may be told to anyone, or undefined when it cannot be made generic: nothing
 * of substance left, or the private part was most of it.
 */
export function makeGeneric(reply: string, ctx: PrivateContext = {}): GenericText | undefined {
  let removed = 0;
  let total = 0;
  let dropped = 0;
  const kept: string[] = [];
  for (const raw of sentences(reply)) {
    let s = raw;
    const unnamed = withoutSalutationName(s);
    if (unnamed !== undefined) {
      removed++;
      s = unnamed;
    }
    const weight = contentWeight(s);
    total += weight;
    if (privateDetail(s, ctx)) {
      removed++;
      dropped += weight;
      continue;
    }
    // Greetings, thanks and sign-offs alone say nothing another visitor needs.
    if (weight === 0 || /^(?:hi|hello|hey|dear|thanks|thank you|sure|ok|okay|of course|no problem|welcome|bonjour|salut|hola|hallo)\b[\s,!.]*$/i.test(s)) continue;
    kept.push(s);
  }
  const text = kept.join(' ').trim();
  if (!text || contentWeight(text) === 0) return undefined;
  // What was private was the substance of the reply: what is left would mislead.
  if (dropped > 0 && dropped >= (total - dropped)) return undefined;
  return { text, removed };
}

/**
 * A visitor's question made safe to keep as a search key and to show as a suggestion: private
 * details are taken out word by word (the question is matched on its other words).
 */
export function scrubQuestion(question: string, ctx: PrivateContext = {}): string | undefined {
  const parts = nameParts([...(ctx.names ?? []), ...peopleIn(question)]);
  let text = question
    .replace(EMAIL, ' ')
    .replace(URL_RE, ' ')
    .replace(ORDER_ID, ' ')
    .replace(STREET, ' ')
    .replace(POSTCODE, ' ')
    .replace(new RegExp(PHONE.source, 'g'), (m) => (m.replace(/\D/g, '').length >= 7 ? ' ' : m))
    .replace(/\b\d{4,}\b/g, ' ')
    .replace(MIXED_CODE, (m) => (HARMLESS_MIXED.test(m) ? m : ' '));
  for (const v of ctx.values ?? []) if (v.trim().length >= 3) text = text.split(v.trim()).join(' ');
  if (parts.length) {
    text = text
      .split(/(\s+)/)
      .filter((w) => !parts.includes(fold(w)))
      .join('');
  }
  text = text.replace(/\(\s*\)|\[\s*\]/g, ' ').replace(/\s+([,.!?])/g, '$1').replace(/\s{2,}/g, ' ').replace(/^[\s,.;:!-]+/, '').trim();
  return text && terms(text).length > 0 ? text : undefined;
}
