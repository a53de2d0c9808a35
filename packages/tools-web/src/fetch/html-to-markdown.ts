import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { HIDDEN_ELEMENTS } from './hidden-elements';

/** A page converted to Markdown. */
export interface MarkdownPage {
  /** The article's or document's title, when there is one. */
  title?: string;
  /** The readable content as Markdown. */
  markdown: string;
  /** True when Readability found a main article; false when the whole body was converted. */
  extracted: boolean;
}

// `embed` too: a void element, so only the DOM holds it (the text scanner has no content to skip).
const REMOVED_ELEMENTS = [...HIDDEN_ELEMENTS, 'embed'];

function createTurndown(): TurndownService {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  turndown.remove([
    'script',
    'style',
    'noscript',
    'template',
    'form',
    'button',
    'input',
    'select',
    'textarea',
  ]);
  // Inline data URIs can be megabytes of base64 the model cannot use.
  turndown.addRule('dropDataImages', {
    filter: (node) => node.nodeName === 'IMG' && (node.getAttribute('src') ?? '').startsWith('data:'),
    replacement: (_content, node) => {
      const alt = (node as unknown as { getAttribute(name: string): string | null }).getAttribute('alt');
      return alt ? `[image: ${alt}]` : '';
    },
  });
  turndown.addRule('scriptLinks', {
    filter: (node) => node.nodeName === 'A' && !/^(https?:|mailto:|#)/i.test(node.getAttribute('href') ?? ''),
    replacement: (content) => content,
  });
  return turndown;
}

const turndown = createTurndown();

type ParsedDocument = ReturnType<typeof parseHTML>['document'];

function absolutize(document: ParsedDocument, baseUrl: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (value === null || value.startsWith('#') || value.startsWith('data:')) continue;
      try {
        element.setAttribute(attribute, new URL(value, baseUrl).href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}

/** Where the first `>` at or after `from` is, or -1. */
function tagEnd(html: string, from: number): number {
  return html.indexOf('>', from);
}

/**
 * linkedom builds an empty body unless the markup has an explicit `<body>` (which HTML lets pages
 * omit), so fragments and body-less documents are wrapped into a full document first.
 *
 * Every search here is a plain scan or a regular expression without quantifiers, then `indexOf`:
 * linear in the page. (The expressions this replaces, `<head[\s>][\s\S]*?<\/head>` and
 * `<!doctype[^>]*>`, rescanned the rest of the page from every `<head` or `<!doctype` without a
 * close: a 240 KB page of `<head>` took seconds.)
 */
export function withExplicitBody(html: string): string {
  if (/<body[\s>]/i.test(html)) return html;
  let rest = html;
  let head = '';
  const headStart = /<head[\s>]/i.exec(rest)?.index;
  if (headStart !== undefined) {
    const close = /<\/head>/gi;
    close.lastIndex = headStart;
    const headClose = close.exec(rest);
    if (headClose !== null) {
      const headEnd = headClose.index + headClose[0].length;
      head = rest.slice(headStart, headEnd);
      rest = rest.slice(0, headStart) + rest.slice(headEnd);
    }
  }
  const doctype = /<!doctype/i.exec(rest);
  if (doctype !== null) {
    const end = tagEnd(rest, doctype.index);
    if (end !== -1) rest = rest.slice(0, doctype.index) + rest.slice(end + 1);
  }
  // Every `<html ...>` and `</html>`; once one has no `>` after it, none after it has either.
  const htmlTag = /<\/?html/gi;
  let kept = '';
  let copied = 0;
  for (let match = htmlTag.exec(rest); match !== null; match = htmlTag.exec(rest)) {
    const end = tagEnd(rest, match.index);
    if (end === -1) break;
    kept += rest.slice(copied, match.index);
    copied = end + 1;
    htmlTag.lastIndex = end + 1;
  }
  rest = kept + rest.slice(copied);
  return `<!doctype html><html>${head}<body>${rest}</body></html>`;
}

/**
 * Converts an HTML document to readable Markdown: Readability (Firefox Reader View's algorithm)
 * extracts the main content, falling back to the whole body when it finds no article, then
 * turndown writes Markdown. Links and images are made absolute against `baseUrl`; scripts,
 * styles, forms and inline data images are dropped.
 *
 * Contract: never throws for malformed HTML; an empty document gives empty Markdown.
 */
export function htmlToMarkdown(html: string, baseUrl: string): MarkdownPage {
  const { document } = parseHTML(withExplicitBody(html));
  for (const element of document.querySelectorAll(REMOVED_ELEMENTS.join(','))) element.remove();
  absolutize(document, baseUrl);
  const documentTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  const fallbackHtml = document.body?.innerHTML ?? document.documentElement?.innerHTML ?? '';
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document, { charThreshold: 300 }).parse();
  } catch {
    article = null;
  }
  const extracted = typeof article?.content === 'string' && (article.textContent ?? '').trim() !== '';
  const markdown = turndown
    .turndown(extracted ? (article?.content ?? '') : fallbackHtml)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const title = article?.title?.trim() || documentTitle;
  return { ...(title ? { title } : {}), markdown, extracted };
}
