import { Bm25 } from '../bm25.js';
import { weightFactor } from '../knowledge.js';
import { STOP_WORDS } from '../lexicon.js';
import { fold, terms } from '../normalize.js';
import { related as thesaurusRelated } from './thesaurus.js';

/**
 * Retrieval over the passages of a business's own sources (issue 17): chunks of its website
 * pages and documents, and its FAQ rows. Pure (no database): engine.ts loads one per account
 * from ai_passages; bench/ai-eval builds them from files.
 *
 * Ranking: BM25 over the passage's terms (its heading, FAQ question and page title count extra),
 * the same multilingual normalisation as learned patterns (normalize.ts), plus two ways to reach
 * a passage that shares few words with the question, both without a download at run time:
 *  - related terms learned from the account's own passages: words of a heading or an FAQ question
 *    and the words of the text under it ("cost" under a heading "Prices") meet in the query;
 *  - an optional embeddings endpoint (embeddings.ts): the query's and passages' vectors, cosine.
 * Confidence: a logistic function of coverage features, as for patterns (knowledge.ts), fitted on
 * the tuning business of bench/ai-eval only (see its README).
 */

export interface Passage {
  id: number;
  sourceId: string;
  /** The page's <title> or the document's name: what an answer cites. */
  title: string;
  url: string | null;
  /** The heading the chunk sits under ('' when none). */
  heading: string;
  /** FAQ rows: the question (text is then the answer). */
  question: string | null;
  text: string;
  /** 1 when new; feedback moves it. */
  weight: number;
  /** Vector of the embeddings endpoint, when one is configured. */
  embedding?: number[] | null;
}

export interface PassageFeatures {
  /** Share of the query's idf-weighted terms the passage has (related terms count part). */
  queryCoverage: number;
  /** Share of the query's idf-weighted terms the passage has as they are (no alternative). */
  direct: number;
  /** Share of the passage's key terms (heading or FAQ question) the query has. */
  keyCoverage: number;
  /** queryCoverage minus that of the best passage on another topic (0 when tied or behind). */
  margin: number;
  /** Cosine similarity of the query's and the passage's vectors (0 without embeddings). */
  semantic: number;
}

export interface PassageCandidate {
  passage: Passage;
  score: number;
  confidence: number;
  features: PassageFeatures;
}

export interface PassageSearch {
  best: PassageCandidate | undefined;
  candidates: PassageCandidate[];
  terms: string[];
}

/**
 * Calibration of the passage confidence, fitted (bench/ai-eval `--fit-passages`) on the two
 * source-kind tuning businesses only (their questions, paraphrases and the off-topic set), with
 * the margin weight kept at its previous value (AI_EVAL_FIX_MARGIN=3.76): the tuning sites have
 * 35-40 passages each and cannot tell how much an account with one or two passages (no rival
 * possible, margin 0) should be trusted; left free, the fit leaned on the margin and a one-page
 * site's exact answer fell below 0.6. `semantic` is 0 offline and is not fitted (no embedding
 * model offline): a perfect vector match alone keeps the logit it had (bias + semantic = -2.3).
 */
export const PASSAGE_CALIBRATION = { bias: -6.08, queryCoverage: 4.27, direct: 1.78, keyCoverage: 2.5, margin: 3.76, semantic: 3.8 };

/** Without a heading or question, a passage's key terms are its page title's. */
const KEY_REPEAT = 2;
/** From this many passages on, the related-terms table is rebuilt in the background after a change. */
const BACKGROUND_REBUILD = 2000;
/** A key word under more headings/questions than this is too general to learn related terms from. */
const MAX_KEY_HEADINGS = 60;
/** A related (learned) term matching counts this share of a real match. */
const RELATED_SHARE = 0.5;
/** A query term in more than this share of passages only refines the ranking of the others' hits. */
const COMMON_SHARE = 0.05;
/** A thesaurus word (thesaurus.ts strength times this) counts this share of a real match at most. */
export const THESAURUS_SHARE = 0.75;
/** Below this cosine, embeddings add no evidence (vectors of unrelated texts are rarely below 0). */
const SEMANTIC_FLOOR = 0.3;

interface Doc {
  passage: Passage;
  key: Set<string>;
  all: Set<string>;
  /** What makes two passages "the same topic": the same page (or file) and heading. */
  topic: string;
  norm: number;
}

const STOP = new Set(STOP_WORDS.split(/\s+/));

/** Function words that tell an English question from a French, Spanish or German one. */
const ENGLISH = new Set('the is are do does did can could you your my what when where which how who will would should have has of to for with and an it this that there at on from'.split(' '));
const OTHER = new Set('le la les des du est et je vous nous pour avec que qui quoi une un dans sur el los las yo usted para por con una como cuando donde der die das und ist ich sie wir mit fur auf ein eine kann wie wann wo'.split(' '));

/** The thesaurus is English: a question that reads as French, Spanish or German is not expanded by it. */
export function englishLike(text: string): boolean {
  let en = 0;
  let other = 0;
  for (const w of fold(text).split(' ')) {
    if (ENGLISH.has(w)) en++;
    else if (OTHER.has(w)) other++;
  }
  return en >= other;
}

/** A word's single retrieval term (undefined for stop words and words that give several terms). */
const termCache = new Map<string, string | null>();
function termOfWord(word: string, known?: (t: string) => boolean): string | undefined {
  let t = termCache.get(word);
  if (t === undefined) {
    const all = terms(word.replace(/_/g, ' '));
    t = all.length === 1 ? all[0]! : null;
    if (termCache.size > 50_000) termCache.clear();
    termCache.set(word, t);
  }
  // A word the index does not know (or a compound) may read otherwise against the index's own terms.
  if (known && (t === null || !known(t))) {
    const own = terms(word, known);
    return own.length === 1 ? own[0] : undefined;
  }
  return t ?? undefined;
}

const sameWords = (a: Passage, b: Passage) =>
  a.text === b.text && a.title === b.title && a.heading === b.heading && a.question === b.question && a.sourceId === b.sourceId && a.url === b.url;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function passageConfidence(f: PassageFeatures, weight: number): number {
  const c = PASSAGE_CALIBRATION;
  const semantic = Math.max(0, f.semantic - SEMANTIC_FLOOR) / (1 - SEMANTIC_FLOOR);
  const raw = sigmoid(c.bias + c.queryCoverage * f.queryCoverage + c.direct * f.direct + c.keyCoverage * f.keyCoverage + c.margin * f.margin + c.semantic * semantic);
  return Math.min(0.99, raw * weightFactor(weight));
}

export class PassageIndex {
  private bm25 = new Bm25();
  private docs = new Map<number, Doc>();
  /** key term -> body term -> passages where they meet; rebuilt lazily after changes. */
  private related: Map<string, Map<string, number>> | undefined;
  /** The table before the last change, used by a large index's searches while the new one is built in the background. */
  private stale: Map<string, Map<string, number>> | undefined;
  private rebuildQueued = false;
  private vectors = 0;
  /** Learned question/answer pairs (approved patterns) that teach related terms too. */
  private pairs: { key: Set<string>; body: Set<string> }[] = [];
  private pairsVersion = -1;
  /** Query expansion by the English thesaurus (thesaurus.ts); the bench turns it off to compare. */
  useThesaurus = true;

  get size(): number {
    return this.docs.size;
  }

  /** Passages that carry a vector (the index searches by embeddings only when some do). */
  get embedded(): number {
    return this.vectors;
  }

  has(id: number): boolean {
    return this.docs.has(id);
  }

  add(p: Passage): void {
    const old = this.docs.get(p.id);
    const newNorm = p.embedding?.length ? Math.hypot(...p.embedding) : 0;
    if (old && sameWords(old.passage, p) && !newNorm === !old.norm) {
      // Only the feedback weight (or the vector) changed: the terms, and so the learned related
      // terms, stay; no rebuild on the next search.
      this.docs.set(p.id, { ...old, passage: p, norm: newNorm });
      return;
    }
    this.remove(p.id);
    const keyText = [p.heading, p.question ?? ''].join(' ').trim();
    const title = terms(p.title);
    const key = terms(keyText || p.title);
    const body = terms(p.text);
    const all = new Set([...title, ...key, ...body]);
    const norm = newNorm;
    if (norm) this.vectors++;
    this.docs.set(p.id, { passage: p, key: new Set(key), all, topic: `${p.sourceId}|${p.url ?? ''}|${fold(p.heading)}`, norm });
    const repeated: string[] = [];
    for (let i = 0; i < KEY_REPEAT; i++) repeated.push(...key);
    this.bm25.add(p.id, [...title, ...repeated, ...body]);
    this.invalidate();
  }

  remove(id: number): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    if (doc.norm) this.vectors--;
    this.docs.delete(id);
    this.bm25.remove(id);
    this.invalidate();
  }

  /**
   * The account's approved learned pairs, as more evidence for related terms (a question's words
   * and its answer's words); `version` skips the work when they have not changed.
   */
  learnPairs(version: number, pairs: () => { question: string; answer: string }[]): void {
    if (version === this.pairsVersion) return;
    this.pairsVersion = version;
    this.pairs = pairs().map((p) => ({ key: new Set(terms(p.question)), body: new Set(terms(p.answer)) }));
    this.invalidate();
  }

  /** Every passage id of a source (to replace or drop what was learned from it). */
  idsOfSource(sourceId: string): number[] {
    return [...this.docs.values()].filter((d) => d.passage.sourceId === sourceId).map((d) => d.passage.id);
  }

  /**
   * Related terms learned from the passages themselves: a word of a heading or FAQ question and a
   * word of the text under it, when they meet under at least two headings/questions and the body
   * word is not everywhere. query term -> [related term, strength 0..1].
   */
  private invalidate(): void {
    if (this.related) this.stale = this.related;
    this.related = undefined;
  }

  /**
   * The related-terms table for a search. Rebuilding it costs tens of milliseconds on a large
   * account (10,000 passages), so after a change (a refreshed source, a learned pair) a large
   * index answers with the previous table and rebuilds it once, right after, off the request.
   */
  private relatedForSearch(): Map<string, Map<string, number>> {
    if (this.related) return this.related;
    if (this.stale && this.docs.size >= BACKGROUND_REBUILD) {
      if (!this.rebuildQueued) {
        this.rebuildQueued = true;
        setImmediate(() => {
          this.rebuildQueued = false;
          this.relatedTerms();
        });
      }
      return this.stale;
    }
    return this.relatedTerms();
  }

  private relatedTerms(): Map<string, Map<string, number>> {
    if (this.related) return this.related;
    const pairs = new Map<string, Map<string, number>>();
    const keyCount = new Map<string, number>();
    const n = this.docs.size || 1;
    const sources: { key: Set<string>; body: Set<string> }[] = [];
    for (const d of this.docs.values()) if (d.passage.heading || d.passage.question) sources.push({ key: d.key, body: d.all });
    sources.push(...this.pairs);
    for (const { key } of sources) for (const k of key) keyCount.set(k, (keyCount.get(k) ?? 0) + 1);
    // Counting every key word with every body word is what costs on a large account: only key words
    // under 2 to MAX_KEY_HEADINGS headings can be learned from, and only body words that are not
    // everywhere (a body word found everywhere says nothing about a key word).
    const bodyOk = new Map<string, boolean>();
    const spreadOk = (b: string) => {
      let ok = bodyOk.get(b);
      if (ok === undefined) bodyOk.set(b, (ok = this.bm25.df(b) / n < 0.2));
      return ok;
    };
    for (const { key, body } of sources) {
      for (const k of key) {
        const kc = keyCount.get(k)!;
        if (kc < 2 || kc > MAX_KEY_HEADINGS) continue;
        let m = pairs.get(k);
        if (!m) pairs.set(k, (m = new Map()));
        for (const b of body) if (b !== k && !key.has(b) && spreadOk(b)) m.set(b, (m.get(b) ?? 0) + 1);
      }
    }
    const related = new Map<string, Map<string, number>>();
    for (const [k, m] of pairs) {
      const kc = keyCount.get(k)!;
      const out = new Map<string, number>();
      for (const [b, c] of m) {
        if (c < 2) continue;
        const share = c / kc;
        if (share >= 0.5) out.set(b, share);
      }
      if (out.size) related.set(k, new Map([...out].sort((a, b) => b[1] - a[1]).slice(0, 5)));
    }
    this.related = related;
    this.stale = undefined;
    return related;
  }

  /**
   * Each query term's alternatives: the learned related terms, and (for a query that reads as
   * English) the thesaurus's words near the query's words, as the index's terms; each with a
   * strength below 1. query term -> alternative term -> strength.
   */
  private alternatives(text: string, query: string[], known: (t: string) => boolean): Map<string, Map<string, number>> {
    const rel = this.relatedForSearch();
    const qset = new Set(query);
    const out = new Map<string, Map<string, number>>();
    const put = (q: string, alt: string, strength: number) => {
      if (qset.has(alt) || !known(alt)) return;
      let m = out.get(q);
      if (!m) out.set(q, (m = new Map()));
      if ((m.get(alt) ?? 0) < strength) m.set(alt, strength);
    };
    for (const t of qset) for (const [r, s] of rel.get(t) ?? []) put(t, r, s * RELATED_SHARE);
    if (this.useThesaurus && englishLike(text)) {
      const words = fold(text).split(' ').filter((w) => w.length >= 3 && !STOP.has(w) && !/\d/.test(w));
      const termOf = words.map((w) => termOfWord(w, known));
      const expand = (word: string, targets: string[]) => {
        for (const [lemma, s] of thesaurusRelated(word)) {
          const alt = termOfWord(lemma);
          if (alt) for (const q of targets) if (alt !== q) put(q, alt, s * THESAURUS_SHARE);
        }
      };
      words.forEach((w, i) => {
        const q = termOf[i];
        if (q && qset.has(q)) expand(w, [q]);
        // Two-word expressions WordNet knows ("part exchange", "spare part") reach their synonyms too.
        const next = words[i + 1];
        const q2 = termOf[i + 1];
        if (next && q && q2 && qset.has(q) && qset.has(q2)) expand(`${w}_${next}`, [q, q2]);
      });
    }
    return out;
  }

  search(text: string, limit = 4, queryVector?: number[] | null): PassageSearch {
    const known = (t: string) => this.bm25.df(t) > 0;
    const query = terms(text, known);
    if (this.docs.size === 0 || (query.length === 0 && !queryVector)) return { best: undefined, candidates: [], terms: query };
    // Query expansion: each query term with its alternatives, weighted below it.
    const qset = new Set(query);
    const alts = this.alternatives(text, query, known);
    const groups = [...qset].map((t) => new Map([[t, 1], ...(alts.get(t) ?? [])]));
    // Feedback weight acts through the confidence (weightFactor); common words only refine (see Bm25.search).
    const hits = this.bm25.searchGroups(groups, limit * 6, COMMON_SHARE);
    const ids = new Map<number, number>(hits.map((h) => [h.id, h.score]));
    // Vectors: the nearest passages join the candidates whatever their words.
    const semantic = new Map<number, number>();
    if (queryVector?.length && this.vectors) {
      const qn = Math.hypot(...queryVector) || 1;
      const near: [number, number][] = [];
      for (const d of this.docs.values()) {
        const v = d.passage.embedding;
        if (!d.norm || !v || v.length !== queryVector.length) continue;
        let dot = 0;
        for (let i = 0; i < v.length; i++) dot += v[i]! * queryVector[i]!;
        near.push([d.passage.id, dot / (qn * d.norm)]);
      }
      near.sort((a, b) => b[1] - a[1]);
      for (const [id, cos] of near.slice(0, limit * 3)) {
        semantic.set(id, cos);
        if (!ids.has(id)) ids.set(id, 0);
      }
    }
    const qlist = [...qset];
    let qTotal = 0;
    for (const t of qlist) qTotal += this.bm25.idf(t);
    // Terms the query reaches only through alternatives, with their best strength (for key coverage).
    const reached = new Map<string, number>();
    for (const m of alts.values()) for (const [r, s] of m) if ((reached.get(r) ?? 0) < s) reached.set(r, s);
    const scored = [...ids].flatMap(([id, score]) => {
      const doc = this.docs.get(id);
      if (!doc) return [];
      let shared = 0;
      let direct = 0;
      // Per query term, the idf-weighted share this passage covers (for the margin over rivals).
      const cover = new Float64Array(qlist.length);
      qlist.forEach((t, i) => {
        const idf = this.bm25.idf(t);
        if (doc.all.has(t)) {
          cover[i] = idf;
          direct += idf;
        } else {
          // A query word reaching the passage only through an alternative counts part.
          let best = 0;
          for (const [r, s] of alts.get(t) ?? []) if (s > best && doc.all.has(r)) best = s;
          cover[i] = best * idf;
        }
        shared += cover[i]!;
      });
      let kTotal = 0;
      let kShared = 0;
      for (const t of doc.key) {
        const idf = this.bm25.idf(t);
        kTotal += idf;
        if (qset.has(t)) kShared += idf;
        else kShared += (reached.get(t) ?? 0) * idf;
      }
      return [{ doc, score, cover, queryCoverage: qTotal ? shared / qTotal : 0, direct: qTotal ? direct / qTotal : 0, keyCoverage: kTotal ? kShared / kTotal : 0, semantic: semantic.get(id) ?? 0 }];
    });
    scored.sort((a, b) => b.score - a.score || b.semantic - a.semantic);
    // "No rival" is evidence only when there are passages that could have rivalled.
    const rivalEvidence = Math.min(1, Math.max(0, this.docs.size - 1) / 4);
    const candidates: PassageCandidate[] = [];
    const topics = new Set<string>();
    for (const s of scored) {
      if (candidates.length >= limit) break;
      if (topics.has(s.doc.topic)) continue;
      topics.add(s.doc.topic);
      // Margin: the share of the question this passage explains better than its closest rival on
      // another topic, word by word (a rival reaching other words through weak synonyms is no
      // coin toss; one covering the same words is).
      let margin = s.queryCoverage;
      let rivalSemantic = 0;
      for (const o of scored) {
        if (o.doc.topic === s.doc.topic) continue;
        let ahead = 0;
        for (let i = 0; i < qlist.length; i++) ahead += Math.max(0, s.cover[i]! - o.cover[i]!);
        margin = Math.min(margin, qTotal ? ahead / qTotal : 0);
        rivalSemantic = Math.max(rivalSemantic, o.semantic);
      }
      const features: PassageFeatures = {
        queryCoverage: s.queryCoverage,
        direct: s.direct,
        keyCoverage: s.keyCoverage,
        margin: margin * rivalEvidence,
        // Semantic evidence counts only for the topic nearest the question (a rival as near makes it a coin toss).
        semantic: s.semantic > 0 && s.semantic >= rivalSemantic ? s.semantic : 0,
      };
      candidates.push({ passage: s.doc.passage, score: s.score, features, confidence: passageConfidence(features, s.doc.passage.weight) });
    }
    candidates.sort((a, b) => b.confidence - a.confidence || b.score - a.score);
    return { best: candidates[0], candidates, terms: query };
  }
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;

/**
 * The reply from a passage without an LLM: an FAQ answer whole; a chunk trimmed to the sentences
 * that hold the question's terms (the best one and the one after it when it continues), at most
 * about `max` characters.
 */
export function extractiveReply(p: Passage, question: string, max = 400): string {
  const text = p.text.replace(/\s+/g, ' ').trim();
  if (p.question || text.length <= max) return text;
  const q = new Set(terms(question));
  const sentences = (text.match(SENTENCE) ?? [text]).map((s) => s.trim()).filter(Boolean);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((s, i) => {
    const t = new Set(terms(s));
    let score = 0;
    for (const w of q) if (t.has(w)) score++;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  let reply = sentences[best]!;
  for (let i = best + 1; i < sentences.length && reply.length + sentences[i]!.length < max; i++) reply += ` ${sentences[i]}`;
  return reply.length > max + 200 ? `${reply.slice(0, max)}…` : reply;
}
