import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docxWith, pdfWith } from './testDocs.js';
import { chunkDocument, chunkFaq } from './chunk.js';
import { docxToDocument, fileToDocument, htmlToDocument, markdownToDocument, parseFaqCsv, pdfToDocument, SourceFormatError, textToDocument } from './extract.js';

// Issue 17: the business's own pages, documents and FAQ become passages that contain, word for
// word, the sentences that answer its visitors' questions (the evaluation set's `passage`).
const data = fileURLToPath(new URL('../../../bench/ai-eval/data/', import.meta.url));

interface Question {
  id: string;
  source: string;
  passage: string;
}

function chunksOf(business: string, source: string, targetWords?: number) {
  const file = path.join(data, business, source);
  const raw = fs.readFileSync(file, 'utf8');
  const origin = (JSON.parse(fs.readFileSync(path.join(data, business, 'questions.json'), 'utf8')) as { origin: string }).origin;
  if (source.endsWith('.html')) return chunkDocument(htmlToDocument(raw, `${origin}/${path.basename(source)}`), { targetWords });
  if (source.endsWith('.csv')) return chunkFaq(parseFaqCsv(raw), 'faq.csv');
  if (source.endsWith('.md')) return chunkDocument(markdownToDocument(raw, path.basename(source)), { targetWords });
  return chunkDocument(textToDocument(raw, path.basename(source)), { targetWords });
}

const words = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

describe.each(['dental', 'saas', 'tuning-cycles'])('the %s business sources', (business) => {
  const questions = (JSON.parse(fs.readFileSync(path.join(data, business, 'questions.json'), 'utf8')) as { questions: Question[] }).questions;

  it('every question is answered word for word inside one passage of its source', () => {
    const missing = questions.filter((q) => !chunksOf(business, q.source).some((c) => c.text.includes(q.passage)));
    expect(missing.map((q) => `${q.id} ${q.source}: ${q.passage}`)).toEqual([]);
  });

  it('cut small, every answer still lies mostly in one passage, and no passage is long', () => {
    for (const q of questions) {
      const chunks = chunksOf(business, q.source, 20);
      for (const c of chunks) expect(words(c.text).length).toBeLessThanOrEqual(40);
      const want = words(q.passage);
      const best = Math.max(...chunks.map((c) => want.filter((w) => words(c.text).includes(w)).length / want.length));
      expect(best, `${q.id}`).toBeGreaterThanOrEqual(0.5);
    }
  });

  it("each page's passages cite its <title> and URL, under the page's headings", () => {
    const site = path.join(data, business, 'site');
    for (const page of fs.readdirSync(site).filter((f) => f.endsWith('.html'))) {
      const html = fs.readFileSync(path.join(site, page), 'utf8');
      const title = /<title>([^<]+)<\/title>/.exec(html)![1]!;
      const chunks = chunksOf(business, `site/${page}`);
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) {
        expect(c.title).toBe(title);
        expect(c.url).toMatch(new RegExp(`/${page}$`));
      }
      const headings = [...html.matchAll(/<h[1-6][^>]*>([^<]+)<\/h[1-6]>/g)].map((m) => m[1]);
      for (const c of chunks) expect(headings).toContain(c.heading);
      // Navigation and footers are not the page's text.
      for (const c of chunks) expect(c.text).not.toMatch(/Home Treatments Prices|Home Features Pricing/);
    }
  });

  it('the FAQ file gives one passage per row: the question, and the answer as text', () => {
    const csv = fs.readFileSync(path.join(data, business, 'faq.csv'), 'utf8');
    const chunks = chunksOf(business, 'faq.csv');
    expect(chunks.length).toBe(csv.trim().split('\n').length - 1);
    for (const c of chunks) {
      expect(c.question).toMatch(/\?$/);
      expect(c.text.length).toBeGreaterThan(0);
      expect(c.text).not.toContain(c.question);
    }
  });
});

describe('htmlToDocument', () => {
  const page = `<!doctype html><html><head><title> Opening  &amp; hours </title><style>p{color:red}</style>
    <script>var x = "<p>not text</p>";</script></head>
    <body><header><nav><a href="/a.html#top">A</a><a href="https://other.example/x">Off</a><a href="mailto:x@y.z">Mail</a></nav></header>
    <p>Intro&nbsp;text <em>before</em> any heading.</p>
    <main><article><header><h1>Welcome</h1></header>
    <p>Line one<br>line two.</p>
    <h2>Hours <small>(2026)</small></h2>
    <ul><li>Monday: 9-5</li><li>Friday: 9-1</li></ul>
    <table><tr><th>Day</th><th>Open</th></tr><tr><td>Sat</td><td>No</td></tr></table>
    <div hidden>secret</div><p aria-hidden="true">decoration</p>
    <noscript>enable js</noscript><aside>related</aside>
    <h3>Empty</h3><h3>Notes</h3><p>Last <a href="b.html" rel="nofollow">link</a>.</p></article></main>
    <footer><p>Copyright</p></footer></body></html>`;
  const doc = htmlToDocument(page, 'https://shop.example/dir/index.html');

  it('keeps the content under its headings and leaves the chrome out', () => {
    expect(doc.title).toBe('Opening & hours');
    expect(doc.sections.map((s) => s.heading)).toEqual(['', 'Welcome', 'Hours (2026)', 'Notes']);
    expect(doc.sections[0]!.text).toBe('Intro text before any heading.');
    expect(doc.sections[1]!.text).toBe('Line one line two.');
    expect(doc.sections[2]!.paragraphs).toEqual(['Monday: 9-5', 'Friday: 9-1', 'Day Open', 'Sat No']);
    expect(doc.sections[3]!.text).toBe('Last link.');
    const all = doc.sections.map((s) => s.text).join(' ');
    for (const gone of ['not text', 'color', 'secret', 'decoration', 'enable js', 'related', 'Copyright', 'A Off']) expect(all).not.toContain(gone);
  });

  it('lists the links to follow: absolute, without fragments, nofollow and mailto left out', () => {
    expect(doc.links).toEqual(['https://shop.example/a.html', 'https://other.example/x']);
    expect(doc.noindex).toBe(false);
  });

  it('falls back to the first h1, then the URL, for the title; reads meta robots', () => {
    expect(htmlToDocument('<h1>Big news</h1><p>x</p>').title).toBe('Big news');
    expect(htmlToDocument('<p>x</p>', 'https://a.example/p').title).toBe('https://a.example/p');
    const robots = htmlToDocument('<meta name="ROBOTS" content="noindex, nofollow"><p>x</p>');
    expect([robots.noindex, robots.nofollow]).toEqual([true, true]);
  });

  it('reads broken markup the way a browser would', () => {
    const d = htmlToDocument('<title>T</title><p>one<p>two<li>three</div><h2>H<p>four');
    // The title is not body text; a heading without text under it is no section.
    expect(d.sections).toEqual([{ heading: '', text: 'one two three', paragraphs: ['one', 'two', 'three'] }]);
  });
});

describe('documents', () => {
  it('Markdown: # headings open sections, marks are dropped, the name is the title', () => {
    const d = markdownToDocument('# Guide\n\nRead **this** `first`, see [the page](https://x.example).\n\n## Refunds\n\n- Within 30 days\n- With the receipt\n', 'guide.md');
    expect(d.title).toBe('guide.md');
    expect(d.sections).toEqual([
      { heading: 'Guide', text: 'Read this first, see the page.', paragraphs: ['Read this first, see the page.'] },
      { heading: 'Refunds', text: 'Within 30 days With the receipt', paragraphs: ['Within 30 days', 'With the receipt'] },
    ]);
  });

  it('TXT: paragraphs are the blocks between blank lines', () => {
    const d = textToDocument('\uFEFFFirst line\nsame paragraph.\r\n\r\n  Second   one.\n\n\n', 'notes.txt');
    expect(d.sections).toEqual([{ heading: '', text: 'First line same paragraph. Second one.', paragraphs: ['First line same paragraph.', 'Second one.'] }]);
  });

  it('PDF: the text of each page', async () => {
    const d = await pdfToDocument(pdfWith(['Refunds are paid within 14 days.', 'Second page text.']), 'terms.pdf');
    expect(d.title).toBe('terms.pdf');
    const text = d.sections.map((s) => s.text).join(' ');
    expect(text).toContain('Refunds are paid within 14 days.');
    expect(text).toContain('Second page text.');
    await expect(pdfToDocument(Buffer.from('%PDF-1.4 garbage'), 'bad.pdf')).rejects.toThrow(SourceFormatError);
  });

  it('DOCX: headings and paragraphs', async () => {
    const d = await fileToDocument(docxWith([['Heading1', 'Returns'], ['', 'Send it back within 30 days.'], ['', 'Keep the box.']]), 'docx', 'policy.docx');
    expect(d.title).toBe('policy.docx');
    expect(d.sections).toEqual([{ heading: 'Returns', text: 'Send it back within 30 days. Keep the box.', paragraphs: ['Send it back within 30 days.', 'Keep the box.'] }]);
    await expect(docxToDocument(Buffer.from('not a zip'), 'x.docx')).rejects.toThrow(SourceFormatError);
  });
});

describe('parseFaqCsv', () => {
  it('reads RFC 4180: quoted commas, doubled quotes, line breaks, a BOM, extra columns', () => {
    const csv = '\uFEFFQuestion,Answer,notes\r\n"Do you ship, abroad?","Yes, to the ""EU"".\nAnd the UK.",x\r\n\r\nOpen Sunday?,No,\r\n';
    expect(parseFaqCsv(csv)).toEqual([
      { question: 'Do you ship, abroad?', answer: 'Yes, to the "EU". And the UK.' },
      { question: 'Open Sunday?', answer: 'No' },
    ]);
  });

  it('says what is wrong with a malformed file', () => {
    const err = (csv: string) => {
      try {
        parseFaqCsv(csv);
      } catch (e) {
        expect(e).toBeInstanceOf(SourceFormatError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(err('q,a\nx,y\n')).toBe('The FAQ file needs a first line naming its columns: question,answer');
    expect(err('question,answer\n"open quote,y\n')).toMatch(/^The FAQ file is not valid CSV/);
    expect(err('question,answer\nx,y,z\n')).toMatch(/^The FAQ file is not valid CSV \(line 2\)/);
    expect(err('question,answer\nWhere?,\n')).toBe('Row 2 of the FAQ file has no answer');
    expect(err('question,answer\n')).toBe('The FAQ file has no question,answer rows');
  });
});

describe('chunkDocument', () => {
  const sentence = (i: number) => `Sentence number ${i} says one two three four five six seven eight.`; // 11 words
  const doc = (sections: { heading: string; paragraphs: string[] }[]) => ({
    title: 'T',
    url: 'https://a.example/',
    links: [],
    noindex: false,
    nofollow: false,
    sections: sections.map((s) => ({ ...s, text: s.paragraphs.join(' ') })),
  });

  it('cuts a long section at paragraph and sentence boundaries into 60-150 words, keeping its heading', () => {
    const long = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' '); // one 440-word paragraph
    const chunks = chunkDocument(doc([{ heading: 'Long', paragraphs: [long] }, { heading: 'Short', paragraphs: ['Just this.'] }]));
    const longChunks = chunks.filter((c) => c.heading === 'Long');
    expect(longChunks.length).toBeGreaterThanOrEqual(3);
    for (const c of longChunks) {
      const n = c.text.split(' ').length;
      expect(n).toBeGreaterThanOrEqual(60);
      expect(n).toBeLessThanOrEqual(150);
      expect(c.text).toMatch(/^Sentence number \d+ .*eight\.$/);
    }
    expect(longChunks.map((c) => c.text).join(' ')).toBe(long);
    // A short section stays one chunk; chunks never cross a heading; positions follow reading order.
    expect(chunks.at(-1)).toMatchObject({ heading: 'Short', text: 'Just this.', title: 'T', url: 'https://a.example/', question: null });
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
  });

  it('cuts a sentence without any stop', () => {
    const run = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkDocument(doc([{ heading: '', paragraphs: [run] }]), { targetWords: 100 });
    expect(chunks.every((c) => c.text.split(' ').length <= 150)).toBe(true);
    expect(chunks.map((c) => c.text).join(' ')).toBe(run);
  });
});
