import { fold, terms } from './normalize.js';

/** What a message is about, reported as `intent_detected`. */
export type Intent =
  | 'greeting'
  | 'thanks'
  | 'goodbye'
  | 'human'
  | 'teach'
  | 'image'
  | 'complaint'
  | 'pricing'
  | 'shipping'
  | 'returns'
  | 'order'
  | 'booking'
  | 'hours'
  | 'contact'
  | 'account'
  | 'support'
  | 'unknown';

const GREETING = /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|bonjour|bonsoir|salut|coucou|hola|buenos dias|buenas( tardes| noches)?|hallo|guten (morgen|tag|abend)|servus|moin)\b/;
const THANKS = /\b(thanks?|thank you|thx|cheers|merci|gracias|danke)\b/;
const GOODBYE = /^(bye|goodbye|see you|au revoir|adios|hasta luego|tschuss|auf wiedersehen)\b/;
const COMPLAINT =
  /\b(complain|complaint|terrible|awful|worst|angry|disappointed|broken|damaged|unacceptable|scam|plainte|decu|inacceptable|abime|queja|reclamacion|decepcionado|roto|beschwerde|enttauscht|kaputt|beschadigt)\b/;
const SUPPORT = /\b(help|problem|issue|error|not working|doesnt work|aide|probleme|marche pas|ayuda|problema|no funciona|hilfe|fehler|funktioniert nicht)\b/;
const HUMAN_VERB = /\b(talk|speak|chat|connect|transfer|want|need|real|live|parler|veux|voudrais|hablar|quiero|necesito|sprechen|mochte|will|brauche|echte[nm]?|vrai|real)\b/;

/** Concept terms (normalize.ts) that name a topic intent; the first found wins. */
const TOPIC: [string, Intent][] = [
  ['refund', 'returns'],
  ['return', 'returns'],
  ['ship', 'shipping'],
  ['track', 'order'],
  ['order', 'order'],
  ['cancel', 'order'],
  ['price', 'pricing'],
  ['pay', 'pricing'],
  ['discount', 'pricing'],
  ['subscription', 'pricing'],
  ['book', 'booking'],
  ['open', 'hours'],
  ['weekend', 'hours'],
  ['contact', 'contact'],
  ['location', 'contact'],
  ['account', 'account'],
  ['password', 'account'],
];

/** Messages that carry no question (greetings, thanks, goodbyes): never answered from learned knowledge, never learned. */
export const SMALL_TALK: ReadonlySet<Intent> = new Set<Intent>(['greeting', 'thanks', 'goodbye']);

/** "Can I talk to a human?" in English, French, Spanish or German. */
export function asksForHuman(text: string): boolean {
  const t = terms(text);
  if (!t.includes('human')) return false;
  const words = fold(text).split(' ').filter(Boolean);
  return words.length <= 3 || HUMAN_VERB.test(fold(text));
}

/** "remember: we ship worldwide" / "remember that ..." / "learn: ..." -> the fact, else undefined. */
export function taughtFact(text: string): string | undefined {
  const m = /^\s*(?:remember|learn|note|retiens|recuerda|merke?(?: dir)?)\s*(?::|that\b|-)\s*([\s\S]+)$/i.exec(text);
  const fact = m?.[1]?.trim();
  return fact ? fact : undefined;
}

export function detectIntent(text: string): Intent {
  if (taughtFact(text)) return 'teach';
  const f = fold(text);
  if (!f) return 'unknown';
  if (asksForHuman(text)) return 'human';
  const words = f.split(' ').length;
  if (COMPLAINT.test(f)) return 'complaint';
  const t = new Set(terms(text));
  for (const [concept, intent] of TOPIC) if (t.has(concept)) return intent;
  if (GREETING.test(f) && words <= 5) return 'greeting';
  if (THANKS.test(f) && words <= 6) return 'thanks';
  if (GOODBYE.test(f) && words <= 5) return 'goodbye';
  if (SUPPORT.test(f)) return 'support';
  return 'unknown';
}
