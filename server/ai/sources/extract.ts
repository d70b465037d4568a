/**
 * Text of the business's own sources (issue 17), pure and without I/O: an HTML page, a Markdown
 * or TXT document, a PDF or DOCX file, an FAQ file (CSV of question,answer). Each becomes a
 * document of sections (a heading and its paragraphs) that chunk.ts cuts into passages.
 *
 * The text reads like the page does (tags stripped, spaces collapsed, entities decoded), so a
 * sentence of the source is found verbatim in its passage; navigation, headers, footers, asides,
 * scripts and styles are left out.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { Parser } from 'htmlparser2';
import { marked } from 'marked';

export interface DocSection {
  /** The heading the section sits under ('' before the first heading). */
  heading: string;
  /** The section's paragraphs (a paragraph, a list item, a table row...) joined by one space. */
  text: string;
  /** The same text cut at paragraph boundaries, for the chunker. */
  paragraphs: string[];
}

export interface SourceDocument {
  /** The page's <title> (else its first h1, else its URL) or the document's name. */
  title: string;
  /** The page's URL; null for documents. */
  url: string | null;
  sections: DocSection[];
  /** Absolute http(s) links of the page (fragments dropped, navigation included), in order, once each. */
  links: string[];
  /** <meta name="robots"> asked not to index the page / not to follow its links. */
  noindex: boolean;
  nofollow: boolean;
  /** A PDF's page count (other documents are one page). */
  pages?: number;
}

export interface FaqRow {
  question: string;
  answer: string;
}

/** A malformed source file: the message is what the owner reads. */
export class SourceFormatError extends Error {}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Elements whose content is not the page's text. */
const DROPPED = new Set(['title', 'script', 'style', 'noscript', 'template', 'nav', 'aside', 'svg', 'iframe', 'object', 'canvas', 'select', 'button', 'head']);
/** Page chrome: dropped unless inside the page's content (an article's own header holds its h1). */
const CHROME = new Set(['header', 'footer']);
const CONTENT = new Set(['main', 'article', 'section']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements that end a paragraph where they open and close. */
const BLOCKS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'caption', 'blockquote', 'pre',
  'section', 'article', 'main', 'figure', 'figcaption', 'address', 'form', 'fieldset', 'legend', 'details', 'summary', 'hr',
  'body', 'html', 'header', 'footer', 'center', 'label',
]);

/** The text, sections and links of an HTML page (url: its address, to resolve links and as the last-resort title). */
export function htmlToDocument(html: string, url?: string): SourceDocument {
  const sections: DocSection[] = [];
  const links: string[] = [];
  const seenLinks = new Set<string>();
  const stack: { name: string; skip: boolean }[] = [];
  let skipping = 0;
  let base = url;
  let title = '';
  let inTitle = false;
  let firstH1 = '';
  let heading: string | null = null; // text of the heading being read
  let current: DocSection = { heading: '', text: '', paragraphs: [] };
  let buffer = '';
  let noindex = false;
  let nofollow = false;

  const flush = () => {
    const text = collapse(buffer);
    buffer = '';
    if (text) current.paragraphs.push(text);
  };
  const endSection = () => {
    flush();
    if (current.paragraphs.length) {
      current.text = current.paragraphs.join(' ');
      sections.push(current);
    }
  };
  const addLink = (href: string) => {
    let abs: URL;
    try {
      abs = base ? new URL(href, base) : new URL(href);
    } catch {
      return;
    }
    if (abs.protocol !== 'http:' && abs.protocol !== 'https:') return;
    abs.hash = '';
    const s = abs.toString();
    if (!seenLinks.has(s)) {
      seenLinks.add(s);
      links.push(s);
    }
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'base' && attribs.href && !stack.some((e) => e.name === 'body')) {
          try {
            base = new URL(attribs.href, url).toString();
          } catch {
            /* a broken <base> is ignored */
          }
        }
        if (name === 'meta' && attribs.name?.toLowerCase() === 'robots') {
          const content = (attribs.content ?? '').toLowerCase();
          if (/\b(noindex|none)\b/.test(content)) noindex = true;
          if (/\b(nofollow|none)\b/.test(content)) nofollow = true;
        }
        if (name === 'a' && attribs.href && !attribs.rel?.split(/\s+/).includes('nofollow')) addLink(attribs.href);
        if (name === 'title' && !title && !stack.some((e) => e.name === 'svg')) inTitle = true;
        const skip =
          DROPPED.has(name) ||
          'hidden' in attribs ||
          attribs['aria-hidden'] === 'true' ||
          (CHROME.has(name) && !stack.some((e) => CONTENT.has(e.name)));
        stack.push({ name, skip });
        if (skip) skipping++;
        if (skipping) return;
        if (HEADINGS.has(name)) {
          endSection();
          heading = '';
        } else if (BLOCKS.has(name)) flush();
        else if (name === 'td' || name === 'th' || name === 'br') buffer += ' ';
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipping) return;
        if (heading !== null) heading += text;
        else buffer += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        // htmlparser2 closes every element it opened (implied closes included), innermost first.
        const top = stack.pop();
        if (!top) return;
        if (top.skip) {
          skipping--;
          return;
        }
        if (skipping) return;
        if (HEADINGS.has(name) && heading !== null) {
          const text = collapse(heading);
          if (name === 'h1' && !firstH1) firstH1 = text;
          current = { heading: text, text: '', paragraphs: [] };
          heading = null;
        } else if (BLOCKS.has(name)) flush();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  if (heading !== null) current = { heading: collapse(heading), text: '', paragraphs: [] };
  endSection();
  return { title: collapse(title) || firstH1 || url || '', url: url ?? null, sections, links, noindex, nofollow };
}

/** A Markdown document: `#` headings open sections; emphasis, links and code marks are dropped. */
export function markdownToDocument(md: string, name: string): SourceDocument {
  const html = marked.parse(md, { async: false, gfm: true });
  return { ...htmlToDocument(html), title: name, url: null, links: [], noindex: false, nofollow: false };
}

/** A plain text document: one section, paragraphs are the blocks between blank lines. */
export function textToDocument(txt: string, name: string): SourceDocument {
  const paragraphs = txt
    .replace(/^\uFEFF/, '')
    .split(/\r?\n\s*\r?\n/)
    .map(collapse)
    .filter(Boolean);
  const sections = paragraphs.length ? [{ heading: '', text: paragraphs.join(' '), paragraphs }] : [];
  return { title: name, url: null, sections, links: [], noindex: false, nofollow: false };
}

/** A PDF file: its text, one section per page (paragraphs at blank lines). */
export async function pdfToDocument(data: Uint8Array, name: string): Promise<SourceDocument> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(data));
    pages = (await extractText(pdf, { mergePages: false })).text;
  } catch (e) {
    throw new SourceFormatError(`The PDF file could not be read (${(e as Error).message}).`);
  }
  const sections = pages.flatMap((page) => textToDocument(page, name).sections);
  return { title: name, url: null, sections, links: [], noindex: false, nofollow: false, pages: pages.length };
}

/** A Word (.docx) file: converted to HTML (headings kept) and read like a page. */
export async function docxToDocument(data: Uint8Array, name: string): Promise<SourceDocument> {
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(data.buffer, data.byteOffset, data.byteLength) })).value;
  } catch (e) {
    throw new SourceFormatError(`The Word file could not be read (${(e as Error).message}).`);
  }
  return { ...htmlToDocument(html), title: name, url: null, links: [], noindex: false, nofollow: false };
}

/** The kinds of document file a source may be, by extension. */
export const DOCUMENT_EXTENSIONS = ['pdf', 'docx', 'md', 'txt'] as const;
export type DocumentExtension = (typeof DOCUMENT_EXTENSIONS)[number];

/** A stored document file read by its extension (pdf, docx, md or txt); name is what answers cite. */
export async function fileToDocument(data: Uint8Array, ext: DocumentExtension, name: string): Promise<SourceDocument> {
  if (ext === 'pdf') return pdfToDocument(data, name);
  if (ext === 'docx') return docxToDocument(data, name);
  const text = new TextDecoder('utf-8').decode(data);
  return ext === 'md' ? markdownToDocument(text, name) : textToDocument(text, name);
}

/**
 * An FAQ file: RFC 4180 CSV whose header line names the columns `question` and `answer` (other
 * columns are ignored). Throws SourceFormatError with the line at fault for a malformed file.
 */
export function parseFaqCsv(csv: string): FaqRow[] {
  let rows: string[][];
  try {
    rows = parseCsv(csv, { bom: true, skip_empty_lines: true, relax_column_count: false, trim: false }) as string[][];
  } catch (e) {
    const err = e as Error & { lines?: number };
    const where = err.lines ? ` (line ${err.lines})` : '';
    throw new SourceFormatError(`The FAQ file is not valid CSV${where}: ${err.message.replace(/^Invalid \w+ \w+: /, '')}`);
  }
  const header = (rows[0] ?? []).map((h) => collapse(h).toLowerCase());
  const qi = header.indexOf('question');
  const ai = header.indexOf('answer');
  if (qi < 0 || ai < 0) throw new SourceFormatError('The FAQ file needs a first line naming its columns: question,answer');
  const out: FaqRow[] = [];
  rows.slice(1).forEach((row, i) => {
    const question = collapse(row[qi] ?? '');
    const answer = collapse(row[ai] ?? '');
    if (!question && !answer) return;
    if (!question || !answer) throw new SourceFormatError(`Row ${i + 2} of the FAQ file has ${question ? 'no answer' : 'no question'}`);
    out.push({ question, answer });
  });
  if (!out.length) throw new SourceFormatError('The FAQ file has no question,answer rows');
  return out;
}
