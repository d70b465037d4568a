/**
 * Okapi BM25 over an in-memory inverted index (one per account). Small on purpose: the
 * knowledge of one business is thousands of short questions, searched in well under a
 * millisecond; documents can be added and removed as patterns are learned and retired.
 */
export interface Hit {
  id: number;
  score: number;
}

const K1 = 1.2;
const B = 0.75;

export class Bm25 {
  private postings = new Map<string, Map<number, number>>();
  private lengths = new Map<number, number>();
  private docTerms = new Map<number, string[]>();
  private totalLength = 0;

  get size(): number {
    return this.lengths.size;
  }

  df(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** Inverse document frequency; a term the index has never seen gets the highest value. */
  idf(term: string): number {
    const n = this.size;
    const df = this.df(term);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  add(id: number, terms: string[]): void {
    if (this.lengths.has(id)) this.remove(id);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let list = this.postings.get(t);
      if (!list) this.postings.set(t, (list = new Map()));
      list.set(id, n);
    }
    this.lengths.set(id, terms.length);
    this.docTerms.set(id, [...tf.keys()]);
    this.totalLength += terms.length;
  }

  remove(id: number): void {
    const terms = this.docTerms.get(id);
    if (!terms) return;
    for (const t of terms) {
      const list = this.postings.get(t);
      list?.delete(id);
      if (list && list.size === 0) this.postings.delete(t);
    }
    this.totalLength -= this.lengths.get(id) ?? 0;
    this.lengths.delete(id);
    this.docTerms.delete(id);
  }

  /**
   * The best `limit` documents for the query terms, each score multiplied by boost(id); documents
   * `accept` refuses are not scored at all (knowledge the asker may not see). With `commonShare`,
   * a term found in more than that share of the documents only adds to documents a rarer term
   * already found (unless none did): on a large index the common words' long posting lists are
   * what costs time, and they never make a document relevant alone.
   */
  search(terms: string[], limit: number, boost?: (id: number) => number, accept?: (id: number) => boolean, commonShare?: number): Hit[] {
    const n = this.size;
    if (n === 0) return [];
    const avg = this.totalLength / n || 1;
    const scores = new Map<number, number>();
    const unique = [...new Set(terms)].filter((t) => this.postings.has(t));
    // Rarest first, so the common terms find the candidate set already made.
    unique.sort((a, b) => this.df(a) - this.df(b));
    const common = commonShare === undefined ? Infinity : Math.max(1, commonShare * n);
    for (const t of unique) {
      const list = this.postings.get(t)!;
      const idf = this.idf(t);
      const onlyKnown = list.size > common && scores.size > 0;
      if (onlyKnown) {
        for (const [id, s] of scores) {
          const tf = list.get(id);
          if (tf === undefined) continue;
          const len = this.lengths.get(id) ?? 0;
          scores.set(id, s + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
        }
        continue;
      }
      for (const [id, tf] of list) {
        if (accept && !accept(id)) continue;
        const len = this.lengths.get(id) ?? 0;
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg));
        scores.set(id, (scores.get(id) ?? 0) + s);
      }
    }
    const hits: Hit[] = [];
    for (const [id, s] of scores) hits.push({ id, score: boost ? s * boost(id) : s });
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, limit);
  }

  /**
   * A query whose words each come with alternatives (a group: term -> weight, the word's own term
   * at 1, expansion terms below): per group a document scores its best alternative's BM25 times
   * that weight, so a word with many synonyms counts once. The query's own terms find the
   * candidates first (rarest first); alternatives come after them. A term in more than
   * `commonShare` of the documents (and more than 50) only scores the candidates already found.
   */
  searchGroups(groups: Map<string, number>[], limit: number, commonShare?: number): Hit[] {
    const n = this.size;
    if (n === 0) return [];
    const avg = this.totalLength / n || 1;
    const common = commonShare === undefined ? Infinity : Math.max(50, commonShare * n);
    // An alternative (weight below 1) brings new candidates only when it is rare: a synonym found
    // in many documents is weak evidence, and scanning its list is what costs on a large index.
    const altCommon = commonShare === undefined ? Infinity : Math.max(20, (commonShare / 5) * n);
    const entries: { group: number; term: string; weight: number; list: Map<number, number> }[] = [];
    groups.forEach((g, group) => {
      for (const [term, weight] of g) {
        const list = this.postings.get(term);
        if (list && weight > 0) entries.push({ group, term, weight, list });
      }
    });
    entries.sort((a, b) => ((a.weight === 1) !== (b.weight === 1) ? (a.weight === 1 ? -1 : 1) : a.list.size - b.list.size));
    const best = groups.map(() => new Map<number, number>());
    const found = new Set<number>();
    const k1b = K1 * B;
    const k1nb = K1 * (1 - B);
    for (const { group, term, weight, list } of entries) {
      const w = weight * this.idf(term) * (K1 + 1);
      const scores = best[group]!;
      const restricted = found.size > 0 && list.size > (weight === 1 ? common : altCommon);
      if (restricted) {
        for (const id of found) {
          const tf = list.get(id);
          if (tf === undefined) continue;
          const s = (w * tf) / (tf + k1nb + (k1b * (this.lengths.get(id) ?? 0)) / avg);
          if (s > (scores.get(id) ?? 0)) scores.set(id, s);
        }
      } else {
        for (const [id, tf] of list) {
          found.add(id);
          const s = (w * tf) / (tf + k1nb + (k1b * (this.lengths.get(id) ?? 0)) / avg);
          if (s > (scores.get(id) ?? 0)) scores.set(id, s);
        }
      }
    }
    const total = new Map<number, number>();
    for (const scores of best) for (const [id, s] of scores) total.set(id, (total.get(id) ?? 0) + s);
    return topK(total, limit);
  }
}

/** The `limit` best of many scores, without sorting them all (a large index touches thousands). */
function topK(scores: Map<number, number>, limit: number): Hit[] {
  const top: Hit[] = [];
  if (limit <= 0) return top;
  const better = (a: Hit, id: number, score: number) => score > a.score || (score === a.score && id < a.id);
  for (const [id, score] of scores) {
    if (top.length === limit && !better(top[limit - 1]!, id, score)) continue;
    let i = top.length === limit ? limit - 1 : top.length;
    while (i > 0 && better(top[i - 1]!, id, score)) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = { id, score };
  }
  return top;
}
