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

const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'ied', 'ed', 'es', 'er', 'en', 's', 'e'];

/** Light, language-agnostic stemming: one common suffix stripped, then truncation to 6 letters. */
export function stem(word: string): string {
  if (/^\d+$/.test(word)) return word;
  let w = word;
  for (const suffix of SUFFIXES) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      // "wrapping" -> "wrapp" -> "wrap"
      if (/([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  return w.length > 6 ? w.slice(0, 6) : w;
}

function conceptOf(word: string): string | undefined {
  const direct = LEXICON.get(word);
  if (direct) return direct;
  // Plural or verb forms of a lexicon word ("deliveries" -> "delivery").
  for (const suffix of ['s', 'es', 'ed', 'ing', 'en', 'e', 'n']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) {
      const base = LEXICON.get(word.slice(0, -suffix.length));
      if (base) return base;
    }
  }
  return undefined;
}

/** The retrieval terms of a text: concepts for known words, stems for the rest, stop words dropped. */
export function terms(text: string): string[] {
  let folded = ` ${fold(text)} `;
  const out: string[] = [];
  for (const [phrase, concept] of PHRASES) {
    if (folded.includes(` ${phrase} `)) {
      out.push(concept);
      folded = folded.split(` ${phrase} `).join(' ');
    }
  }
  for (const word of folded.split(' ')) {
    if (!word) continue;
    const concept = conceptOf(word);
    if (concept) {
      out.push(concept);
      continue;
    }
    if (STOP.has(word) || word.length < 2) continue;
    out.push(stem(word));
  }
  return out;
}
