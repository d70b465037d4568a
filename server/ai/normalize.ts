import { CONCEPTS, STOP_WORDS } from './lexicon.js';

/**
 * Multilingual-tolerant text normalization for retrieval: accents folded, stop words dropped
 * (English, French, Spanish, German), common customer-service words mapped to one concept
 * across the four languages (so "livraison", "envío" and "shipping" meet), and other words
 * reduced by light suffix stripping and truncation. A fixed, general lexicon: no per-account data.
 */

const STOP = new Set(STOP_WORDS.split(/\s+/));

const LEXICON = new Map<string, string>();
const PHRASES: [string, string][] = [];
for (const [concept, words] of Object.entries(CONCEPTS)) {
  for (const w of words.split(/\s+/)) {
    if (w.includes('_')) PHRASES.push([w.replace(/_/g, ' '), concept]);
    else if (!LEXICON.has(w)) LEXICON.set(w, concept);
  }
}
// Longest phrases first so "mot de passe" wins over a shorter overlap.
PHRASES.sort((a, b) => b[0].length - a[0].length);
/** Phrase indexes (in PHRASES' order) by first word: a text is searched only for phrases whose words it all has. */
const PHRASE_STARTS = new Map<string, number[]>();
const PHRASE_WORDS = PHRASES.map(([p]) => p.split(' '));
PHRASE_WORDS.forEach((words, i) => {
  const list = PHRASE_STARTS.get(words[0]!);
  if (list) list.push(i);
  else PHRASE_STARTS.set(words[0]!, [i]);
});

/** Lowercase, accents folded, punctuation to spaces; keeps digits. */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const SUFFIXES = ['ations', 'ation', 'aciones', 'acion', 'ments', 'ment', 'ungen', 'ung', 'ings', 'ing', 'ies', 'ied', 'ed', 'es', 'er', 'en', 's', 'e'];

/**
 * Spelling differences between cognates folded away ("Produkt"/"product", "Batterie"/"battery",
 * "foto"/"photo"): k->c, ph->f, th->t, z->s, y->i, doubled letters single.
 */
function cognate(word: string): string {
  return word
    .replace(/ph/g, 'f')
    .replace(/th/g, 't')
    .replace(/k/g, 'c')
    .replace(/z/g, 's')
    .replace(/y/g, 'i')
    .replace(/([a-z])\1+/g, '$1');
}

/** Light, language-agnostic stemming: cognate spelling folded, one common suffix stripped, then truncation to 6 letters. */
export function stem(word: string): string {
  if (/^\d+$/.test(word)) return word;
  let w = cognate(word);
  for (const suffix of SUFFIXES) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w.length > 6 ? w.slice(0, 6) : w;
}

/** Inflection endings of English, French, Spanish and German tried to reach a lexicon word. */
const ENDINGS = ['s', 'es', 'ed', 'ing', 'en', 'e', 'n', 't', 'st', 'et', 'te', 'ten', 'ez', 'ons', 'ent', 'ee', 'ees', 'ait', 'an', 'amos', 'aron'];
const BASE_ENDINGS = ['', 'e', 'en', 'er', 'ar', 'ir', 'n'];

function conceptOf(word: string, depth = 0): string | undefined {
  const direct = LEXICON.get(word);
  if (direct) return direct;
  // Plural or verb forms of a lexicon word: "deliveries", "livrez" -> "livrer", "bestellt" -> "bestellen".
  for (const ending of ENDINGS) {
    if (word.length > ending.length + 3 && word.endsWith(ending)) {
      const base = word.slice(0, -ending.length);
      for (const b of BASE_ENDINGS) {
        const c = LEXICON.get(base + b);
        if (c) return c;
      }
    }
  }
  // German participles: "geliefert" -> "liefert".
  if (depth === 0 && word.length > 6 && word.startsWith('ge')) return conceptOf(word.slice(2), 1);
  return undefined;
}

/**
 * A German compound split into a known head and its modifier ("Sauerteigbrot" -> sauerteig +
 * brot, "Treuekarte" -> treue + karte): the head must be a lexicon word or, for a query, a term
 * the index has learned. Returns the terms, or undefined when no split is found.
 */
function splitCompound(word: string, known?: (t: string) => boolean): string[] | undefined {
  if (word.length < 8) return undefined;
  for (let i = 3; i <= word.length - 4; i++) {
    const head = word.slice(i);
    const headTerm = conceptOf(head) ?? (known && head.length >= 5 && known(stem(head)) ? stem(head) : undefined);
    if (!headTerm) continue;
    // Linking letters of German compounds: Geburtstag-s-kuchen, Kinder-menu.
    const left = word.slice(0, i).replace(/(es|s|n)$/, (m) => (i - m.length >= 3 ? '' : m));
    const leftTerm = conceptOf(left) ?? stem(left);
    return STOP.has(left) ? [headTerm] : [leftTerm, headTerm];
  }
  return undefined;
}

/**
 * The retrieval terms of a text: concepts for known words, stems for the rest, stop words
 * dropped. `known` (a query against an index) lets unknown compounds split on learned terms.
 */
export function terms(text: string, known?: (t: string) => boolean): string[] {
  let folded = ` ${fold(text)} `;
  const out: string[] = [];
  // Checking every phrase against every text is what made indexing a large account slow.
  const words = new Set(folded.split(' '));
  const candidates: number[] = [];
  for (const w of words) for (const i of PHRASE_STARTS.get(w) ?? []) if (PHRASE_WORDS[i]!.every((x) => words.has(x))) candidates.push(i);
  candidates.sort((a, b) => a - b);
  for (const i of candidates) {
    const [phrase, concept] = PHRASES[i]!;
    if (folded.includes(` ${phrase} `)) {
      out.push(concept);
      folded = folded.split(` ${phrase} `).join(' ');
    }
  }
  let previous = '';
  for (const word of folded.split(' ')) {
    if (!word) continue;
    // "sugar free", "nut-free": free of something, not free of charge.
    if (word === 'free' && previous && !STOP.has(previous)) {
      out.push('without');
      previous = word;
      continue;
    }
    previous = word;
    // Without `known` a word always reads the same: cached (indexing repeats a site's vocabulary).
    let wt = known ? undefined : WORD_TERMS.get(word);
    if (!wt) {
      wt = wordTerms(word, known);
      if (!known) {
        if (WORD_TERMS.size >= WORD_TERMS_MAX) WORD_TERMS.clear();
        WORD_TERMS.set(word, wt);
      }
    }
    for (const t of wt) out.push(t);
  }
  return out;
}

const WORD_TERMS = new Map<string, readonly string[]>();
const WORD_TERMS_MAX = 100_000;
const NONE: readonly string[] = [];

/** The terms of one word (after phrases): its concept, or nothing for a stop word, or its stem or compound parts. */
function wordTerms(word: string, known?: (t: string) => boolean): readonly string[] {
  const concept = conceptOf(word);
  if (concept) return [concept];
  if (STOP.has(word) || word.length < 2) return NONE;
  // "eggless", "sugarless": without + the lexicon word.
  const less = /^(.{3,})less$/.exec(word);
  const lessConcept = less ? conceptOf(less[1]!) : undefined;
  if (lessConcept) return [lessConcept, 'without'];
  const s = stem(word);
  const parts = known?.(s) ? undefined : splitCompound(word, known);
  return parts ?? [s];
}
