/**
 * Reads the frozen evaluation set (data/, see README.md) and checks that it is well formed.
 * `node bench/ai-eval/run.mjs --check` prints the problems (exit code 1) or the counts;
 * server/ai/evalData.test.ts runs it so the set cannot break silently.
 * Nothing here depends on server/ai: the set must stay the same whatever the engine becomes.
 */
import fs from 'node:fs';
import path from 'node:path';

/** [question, answer, paraphrase 1, paraphrase 2, paraphrase 3] */
export type QaItem = [string, string, string, string, string];
export interface QaSet {
  business: string;
  items: QaItem[];
}

/** One question of a source business (website + documents + FAQ). */
export interface SourceQuestion {
  id: string;
  question: string;
  /** Shares no content word with `passage` (see contentStems). */
  paraphrase: string;
  /** Path of the source inside the business folder: site/<page>.html, docs/<file>, or faq.csv. */
  source: string;
  /** Words of the source that answer the question, exactly as its text reads (tags stripped, spaces collapsed). */
  passage: string;
}
export interface SourceSet {
  business: string;
  kind: string;
  /** The site's address in the sitemap (pages are served from there in tests). */
  origin: string;
  questions: SourceQuestion[];
}

export const QA_BUSINESSES = ['bakery', 'electronics', 'diving'] as const;
export const SOURCE_BUSINESSES = ['dental', 'saas'] as const;
/**
 * The tuning business of the source kind (written and committed before any tuning of passage
 * retrieval; the only source business whose failures may be read): 40 or more questions.
 */
export const TUNING_SOURCE_BUSINESSES = ['tuning-cycles', 'tuning-guesthouse'] as const;
export const TUNING_SOURCE_QUESTIONS = 40;
export const QA_PAIRS = 100;
export const OFF_TOPIC = 100;
export const SOURCE_QUESTIONS = 60;

export const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

export const loadQa = (dir: string, name: string) => readJson<QaSet>(path.join(dir, `${name}.json`));
export const loadOffTopic = (dir: string) => readJson<{ questions: string[] }>(path.join(dir, 'offtopic.json')).questions;
export const loadSources = (dir: string, name: string) => readJson<SourceSet>(path.join(dir, name, 'questions.json'));

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Visible text of an HTML page (head, scripts and styles dropped), spaces collapsed. */
export function htmlText(html: string): string {
  return html
    .replace(/<head[\s\S]*?<\/head>|<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#?\w+);/g, (m, e: string) => ENTITIES[e] ?? m)
    .replace(/\s+/g, ' ')
    .trim();
}

/** Text of a Markdown or TXT document: heading marks and emphasis dropped, spaces collapsed. */
export function docText(text: string): string {
  return text
    .replace(/^#+\s*/gm, '')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The searchable text of one source file of a business folder (for CSV: one line per answer). */
export function sourceText(file: string): string {
  const raw = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.html')) return htmlText(raw);
  if (file.endsWith('.csv')) return parseCsv(raw).slice(1).map((r) => `${r[0]} ${r[1]}`.replace(/\s+/g, ' ').trim()).join('\n');
  return docText(raw);
}

// Function words of English, French, Spanish and German: what "content word" leaves out.
const STOP = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by can could
  did do does doing done down during each either else even ever every few for from further get gets got had has have having
  he her here hers him his how i if in into is it its itself just let like may me might more most much must my no nor not
  now of off on once one only or other our ours out over own same shall she should so some such than that the their theirs
  them then there these they this those through to too under until up upon us very was we were what when where which while
  who whom whose why will with within without would yes yet you your yours
  au aux avec ce ces cet cette dans de des du elle en est et il ils je la le les leur mais me mes mon ne nos notre nous on ou
  par pas pour qu que qui sa se ses son sur ta te tes ton tu un une vos votre vous y
  al como con cual del el ella es esta este hay la las le lo los mi mis nos nuestro o para pero por que se si sin su sus te tu
  un una uno unos usted y ya
  am an auf aus bei bin bis das dem den der des die ein eine einem einen einer es für gibt hat ich ihr ihre im ist ja kann
  man mit nach nicht noch oder sie sind so über um und uns vom von vor was wer wie wir zu zum zur`.split(/\s+/),
);

const foldWord = (w: string) => w.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');

/**
 * Content words of a text, compared on their first five letters (so "clean"/"cleaning" and
 * "month"/"monthly" count as the same word): folded to ASCII, words of three or more letters
 * or digits, function words dropped. A paraphrase must share none of them with its passage.
 */
export function contentStems(text: string): Set<string> {
  const words = foldWord(text.toLowerCase().replace(/ß/g, 'ss'))
    .split(/[^a-z0-9]+/)
    .filter((w) => (w.length >= 3 || /^\d+$/.test(w)) && !STOP.has(w));
  return new Set(words.map((w) => w.slice(0, 5)));
}

const HTML_PARTS: [string, RegExp][] = [
  ['<title>', /<title>[^<]+<\/title>/i],
  ['<nav>', /<nav[\s>]/i],
  ['<h1>', /<h1[\s>]/i],
  ['<h2>', /<h2[\s>]/i],
  ['<p>', /<p[\s>]/i],
];

/** Every problem of the data set in `dir`, and a summary of what was checked. */
export function checkData(dir: string): { problems: string[]; summary: string[] } {
  const problems: string[] = [];
  const summary: string[] = [];
  const bad = (where: string, what: string) => problems.push(`${where}: ${what}`);
  const text = (s: unknown) => typeof s === 'string' && s.trim() !== '' && s === s.trim();
  const allQuestions = new Set<string>();

  for (const name of QA_BUSINESSES) {
    const where = `${name}.json`;
    let set: QaSet;
    try {
      set = loadQa(dir, name);
    } catch (e) {
      bad(where, `unreadable (${(e as Error).message})`);
      continue;
    }
    if (!text(set.business)) bad(where, 'no business name');
    if (!Array.isArray(set.items) || set.items.length !== QA_PAIRS) bad(where, `${set.items?.length} items, expected ${QA_PAIRS}`);
    const seen = new Map<string, number>();
    (set.items ?? []).forEach((item, i) => {
      const at = `${where} item ${i}`;
      if (!Array.isArray(item) || item.length !== 5 || !item.every(text)) {
        bad(at, 'not [question, answer, 3 paraphrases] of trimmed non-empty texts');
        return;
      }
      const lower = item.map((s) => s.toLowerCase());
      for (const s of [lower[0]!, ...lower.slice(2)]) {
        const first = seen.get(s);
        if (first !== undefined && first !== i) bad(at, `${JSON.stringify(s)} already asked in item ${first}`);
        seen.set(s, i);
        allQuestions.add(s);
      }
      if (new Set([lower[0], ...lower.slice(2)]).size !== 4) bad(at, 'a paraphrase repeats the question or another paraphrase');
    });
    summary.push(`${where}: ${set.items?.length} pairs, ${3 * (set.items?.length ?? 0)} paraphrases (${set.business})`);
  }

  try {
    const off = loadOffTopic(dir);
    if (off.length !== OFF_TOPIC) bad('offtopic.json', `${off.length} questions, expected ${OFF_TOPIC}`);
    if (!off.every(text)) bad('offtopic.json', 'a question is empty or untrimmed');
    if (new Set(off.map((q) => q.toLowerCase())).size !== off.length) bad('offtopic.json', 'duplicate questions');
    for (const q of off) if (allQuestions.has(q.toLowerCase())) bad('offtopic.json', `${JSON.stringify(q)} is a business question`);
    summary.push(`offtopic.json: ${off.length} questions`);
  } catch (e) {
    bad('offtopic.json', `unreadable (${(e as Error).message})`);
  }

  for (const name of SOURCE_BUSINESSES) checkSources(dir, name, bad, summary);
  for (const name of TUNING_SOURCE_BUSINESSES) checkSources(dir, name, bad, summary, TUNING_SOURCE_QUESTIONS);
  return { problems, summary };
}

function checkSources(dir: string, name: string, bad: (where: string, what: string) => void, summary: string[], atLeast?: number): void {
  const root = path.join(dir, name);
  const list = (sub: string) => (fs.existsSync(path.join(root, sub)) ? fs.readdirSync(path.join(root, sub)).sort() : []);
  const text = (s: unknown) => typeof s === 'string' && s.trim() !== '' && s === s.trim();

  // The website: 5-10 pages with real structure, every link and sitemap entry resolving.
  const site = list('site');
  const pages = site.filter((f) => f.endsWith('.html'));
  if (pages.length < 5 || pages.length > 10) bad(`${name}/site`, `${pages.length} pages, expected 5-10`);
  if (!site.includes('sitemap.xml') || !site.includes('robots.txt')) bad(`${name}/site`, 'sitemap.xml or robots.txt missing');
  let set: SourceSet | undefined;
  try {
    set = loadSources(dir, name);
  } catch (e) {
    bad(`${name}/questions.json`, `unreadable (${(e as Error).message})`);
  }
  const origin = set?.origin ?? '';
  for (const page of pages) {
    const html = fs.readFileSync(path.join(root, 'site', page), 'utf8');
    for (const [part, re] of HTML_PARTS) if (!re.test(html)) bad(`${name}/site/${page}`, `no ${part}`);
    for (const [, href] of html.matchAll(/href="([^"#]+)[^"]*"/g)) {
      if (/^(https?:|mailto:|tel:)/.test(href!)) continue;
      if (!site.includes(href!.replace(/^\//, '') || 'index.html')) bad(`${name}/site/${page}`, `link to missing ${href}`);
    }
  }
  if (site.includes('sitemap.xml')) {
    const locs = [...fs.readFileSync(path.join(root, 'site', 'sitemap.xml'), 'utf8').matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    for (const loc of locs) {
      if (!loc.startsWith(`${origin}/`)) bad(`${name}/site/sitemap.xml`, `${loc} is not under ${origin}`);
      const file = loc.slice(origin.length + 1) || 'index.html';
      if (!pages.includes(file)) bad(`${name}/site/sitemap.xml`, `${loc} has no page`);
    }
    if (locs.length < 5) bad(`${name}/site/sitemap.xml`, `${locs.length} entries`);
  }
  if (site.includes('robots.txt')) {
    const robots = fs.readFileSync(path.join(root, 'site', 'robots.txt'), 'utf8');
    if (!/^User-agent:/im.test(robots) || !/^Sitemap:/im.test(robots)) bad(`${name}/site/robots.txt`, 'needs User-agent and Sitemap lines');
  }

  // Documents and the FAQ.
  const docs = list('docs').filter((f) => /\.(md|txt)$/.test(f));
  if (docs.length < 1 || docs.length > 2) bad(`${name}/docs`, `${docs.length} documents, expected 1-2 (.md or .txt)`);
  let faqRows = 0;
  if (!fs.existsSync(path.join(root, 'faq.csv'))) bad(name, 'faq.csv missing');
  else {
    const rows = parseCsv(fs.readFileSync(path.join(root, 'faq.csv'), 'utf8'));
    if (rows[0]?.join(',') !== 'question,answer') bad(`${name}/faq.csv`, 'header must be question,answer');
    rows.slice(1).forEach((r, i) => {
      if (r.length !== 2 || !r.every(text)) bad(`${name}/faq.csv`, `row ${i + 2} is not two trimmed non-empty fields`);
    });
    faqRows = rows.length - 1;
  }

  // The questions: answered in the named source, paraphrase sharing no content word with the answer.
  if (!set) return;
  if (!text(set.business) || !text(set.kind) || !/^https?:\/\/[^/]+$/.test(origin)) bad(`${name}/questions.json`, 'business, kind and origin (scheme://host) are required');
  const qs = set.questions ?? [];
  if (atLeast === undefined ? qs.length !== SOURCE_QUESTIONS : qs.length < atLeast)
    bad(`${name}/questions.json`, `${qs.length} questions, expected ${atLeast === undefined ? SOURCE_QUESTIONS : `${atLeast} or more`}`);
  const ids = new Set<string>();
  const asked = new Set<string>();
  const texts = new Map<string, string>();
  const bySource = new Map<string, number>();
  for (const q of qs) {
    const at = `${name}/questions.json ${q.id}`;
    if (!text(q.id) || ids.has(q.id)) bad(at, 'missing or duplicate id');
    ids.add(q.id);
    if (![q.question, q.paraphrase, q.source, q.passage].every(text)) {
      bad(at, 'question, paraphrase, source and passage must be trimmed non-empty texts');
      continue;
    }
    for (const s of [q.question, q.paraphrase]) {
      if (asked.has(s.toLowerCase())) bad(at, `${JSON.stringify(s)} asked twice`);
      asked.add(s.toLowerCase());
    }
    const file = path.join(root, q.source);
    if (!/^(site\/[\w-]+\.html|docs\/[\w.-]+\.(md|txt)|faq\.csv)$/.test(q.source) || !fs.existsSync(file)) {
      bad(at, `source ${q.source} is not a page, document or faq.csv of the business`);
      continue;
    }
    bySource.set(q.source.split('/')[0]!, (bySource.get(q.source.split('/')[0]!) ?? 0) + 1);
    if (!texts.has(file)) texts.set(file, sourceText(file));
    if (!texts.get(file)!.includes(q.passage)) bad(at, `passage not found in ${q.source}: ${JSON.stringify(q.passage)}`);
    const passage = contentStems(q.passage);
    const shared = [...contentStems(q.paraphrase)].filter((s) => passage.has(s));
    if (shared.length) bad(at, `paraphrase shares ${shared.join(', ')} with the passage`);
  }
  const from = [...bySource].map(([k, n]) => `${n} ${k}`).join(', ');
  summary.push(`${name}: ${set.business}, ${pages.length} pages, ${docs.length} documents, ${faqRows} FAQ rows, ${qs.length} questions (${from})`);
}
