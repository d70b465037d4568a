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
}
