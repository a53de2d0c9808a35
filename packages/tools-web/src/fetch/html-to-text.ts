import { decodeHTML } from 'entities';
import { HIDDEN_ELEMENTS } from './hidden-elements';

/** A page read as plain text, without a DOM. */
export interface PlainTextPage {
  /** The first `<title>`'s text, when there is one. */
  title?: string;
  /** The page's text: tags dropped, entities decoded, whitespace collapsed, blocks on their own lines. */
  text: string;
}

/** Elements whose content is not text a reader sees: skipped up to their end tag. */
const SKIPPED = new Set([...HIDDEN_ELEMENTS, 'textarea', 'select', 'button', 'xmp', 'noembed', 'noframes']);

/** Elements that start a line. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tr',
  'ul',
]);

/** Elements followed by a blank line. */
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** End tags searched for, one regular expression without quantifiers per skipped element. */
const END_TAGS = new Map(
  [...SKIPPED, 'title'].map((name) => [name, new RegExp(`</${name}(?=[\\s/>])`, 'gi')] as const),
);

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isNameCharacter(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57) || code === 45 || code === 58 || code === 95;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

/** Where the tag whose attributes start at `index` ends (one past its `>`), quoted values skipped. */
function skipAttributes(html: string, index: number): number {
  let position = index;
  while (position < html.length) {
    const code = html.charCodeAt(position);
    if (code === 62) return position + 1;
    if (code === 61) {
      // `=`: a value follows, quoted or not. A quote elsewhere is an ordinary character.
      position += 1;
      while (isSpace(html.charCodeAt(position))) position += 1;
      const quote = html.charCodeAt(position);
      if (quote === 34 || quote === 39) {
        const close = html.indexOf(quote === 34 ? '"' : "'", position + 1);
        // An unclosed quote runs to the end of the page, as it does in a browser.
        if (close === -1) return html.length;
        position = close + 1;
      }
      continue;
    }
    position += 1;
  }
  return html.length;
}

/** Builds the text: collapsed spaces within lines, at most one blank line between blocks. */
class TextBuilder {
  private readonly chunks: string[] = [];
  private pendingSpace = false;
  private pendingBreaks = 0;
  private empty = true;

  text(raw: string): void {
    const collapsed = decodeHTML(raw).replace(/\s+/g, ' ');
    if (collapsed === '') return;
    const startsWithSpace = collapsed.charCodeAt(0) === 32;
    const endsWithSpace = collapsed.charCodeAt(collapsed.length - 1) === 32;
    const words = collapsed.trim();
    if (words === '') {
      this.pendingSpace = true;
      return;
    }
    if (!this.empty) {
      if (this.pendingBreaks > 0) this.chunks.push(this.pendingBreaks > 1 ? '\n\n' : '\n');
      else if (this.pendingSpace || startsWithSpace) this.chunks.push(' ');
    }
    this.chunks.push(words);
    this.empty = false;
    this.pendingBreaks = 0;
    this.pendingSpace = endsWithSpace;
  }

  block(breaks: number): void {
    this.pendingBreaks = Math.max(this.pendingBreaks, breaks);
    this.pendingSpace = false;
  }

  space(): void {
    this.pendingSpace = true;
  }

  toString(): string {
    return this.chunks.join('');
  }
}

/**
 * Reads an HTML page as plain text in one pass over the markup, without building a DOM: tags are
 * dropped (scripts, styles and other non-text elements with their content), entities decoded,
 * whitespace collapsed, and block elements start new lines. The fallback when Markdown conversion
 * misses its deadline or fails.
 *
 * Written by hand because it must be linear on any page: the HTML parsers in the field keep a stack
 * of open elements that costs O(depth) per tag (htmlparser2 `unshift`s onto it), so a page of 100 000
 * unclosed `<div>`s takes minutes; this scanner keeps no stack at all. Every character is looked at
 * a bounded number of times (`indexOf` and the end-tag searches only move forward).
 *
 * Contract: never throws; linear in the length of `html`.
 */
export function htmlToText(html: string): PlainTextPage {
  const output = new TextBuilder();
  let title: string | undefined;
  let index = 0;
  let textStart = 0;
  const flush = (end: number) => {
    if (end > textStart) output.text(html.slice(textStart, end));
  };
  while (index < html.length) {
    const open = html.indexOf('<', index);
    if (open === -1) break;
    const next = html.charCodeAt(open + 1);
    if (next === 33 || next === 63) {
      // `<!--` comment, `<!doctype>`, `<![CDATA[`, `<?xml>`: none is text.
      flush(open);
      const comment = html.startsWith('<!--', open);
      const end = comment ? html.indexOf('-->', open + 4) : html.indexOf('>', open + 2);
      index = end === -1 ? html.length : end + (comment ? 3 : 1);
      textStart = index;
      continue;
    }
    const closing = next === 47;
    const nameStart = closing ? open + 2 : open + 1;
    if (!isLetter(html.charCodeAt(nameStart))) {
      // A `<` that starts no tag is text ("a < b").
      index = open + 1;
      continue;
    }
    flush(open);
    let nameEnd = nameStart + 1;
    while (isNameCharacter(html.charCodeAt(nameEnd))) nameEnd += 1;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    index = closing ? html.indexOf('>', nameEnd) + 1 || html.length : skipAttributes(html, nameEnd);
    textStart = index;
    if (BLOCKS.has(name)) output.block(PARAGRAPHS.has(name) ? 2 : 1);
    else if (name === 'td' || name === 'th') output.space();
    // A self-closing tag (`<svg/>`) has no content to skip.
    if (closing || html.charCodeAt(index - 2) === 47) continue;
    const endTag = END_TAGS.get(name);
    if (endTag === undefined) continue;
    endTag.lastIndex = index;
    const end = endTag.exec(html);
    const contentEnd = end === null ? html.length : end.index;
    if (name === 'title' && title === undefined) {
      title = decodeHTML(html.slice(index, contentEnd)).replace(/\s+/g, ' ').trim() || undefined;
    }
    // The end tag itself is read as an ordinary end tag on the next round.
    index = contentEnd;
    textStart = index;
  }
  flush(html.length);
  const text = output.toString();
  return { ...(title === undefined ? {} : { title }), text };
}
