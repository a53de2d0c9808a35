import { neutraliseMarkers } from '../untrusted-content';
import type { ContentKind } from './content-kind';
import { htmlToMarkdown } from './html-to-markdown';
import { htmlToText } from './html-to-text';

/**
 * How a body is rendered. `full`: HTML as Markdown (Readability + turndown), JSON pretty-printed.
 * `plain`: the linear fallbacks only, HTML as text without markup and JSON as it came.
 */
export type RenderMode = 'full' | 'plain';

/** What the model reads a body as. */
export type RenderFormat = 'markdown' | 'html-text' | 'json' | 'text';

/** One page of a fetched body to render. */
export interface RenderRequest {
  /** How the body is handled, from its media type. */
  kind: ContentKind;
  /** Full conversion, or the linear fallbacks only. */
  mode: RenderMode;
  /** The body as fetched (after decompression). */
  body: Uint8Array;
  /** The charset from the headers or the page's `<meta>`, when known. */
  charset?: string;
  /** The page's URL: links and images are made absolute against it. */
  url: string;
  /** First character of the rendered content to return. */
  startIndex: number;
  /** Most characters to return. */
  maxLength: number;
}

/** A rendered body: its size and the requested page of it. */
export interface RenderedPage {
  /** What the body was rendered as. */
  format: RenderFormat;
  /** The page title (HTML), marker look-alikes neutralised. */
  title?: string;
  /** For Markdown: Readability found a main article (false: the whole body was converted). */
  extracted?: boolean;
  /** Why `full` mode fell back to `html-text` within the same run (the converter threw). */
  fallbackReason?: string;
  /** Characters of rendered content in all. */
  totalLength: number;
  /** First character returned. */
  startIndex: number;
  /** One past the last character returned. */
  endIndex: number;
  /** The returned characters, marker look-alikes neutralised. */
  slice: string;
}

function decoderFor(charset: string | undefined): InstanceType<typeof TextDecoder> {
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** Backs off a slice end so a surrogate pair is never split. */
export function safeEnd(text: string, end: number): number {
  if (end >= text.length || end <= 0) return Math.min(end, text.length);
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Renders a fetched body (decode, convert, neutralise marker look-alikes) and cuts out the requested
 * page. Runs in a worker thread (`render-worker.ts`): the Markdown conversion's libraries are not
 * linear on every page, and the caller bounds this run with a deadline.
 *
 * Contract: never throws. `plain` mode and text bodies are linear in the body's size; in `full`
 * mode a converter that throws (a RangeError for nesting deeper than the stack) falls back to
 * `html-text`, and malformed JSON is passed through as text.
 */
export function renderPage(request: RenderRequest): RenderedPage {
  const text = decoderFor(request.charset).decode(request.body);
  let format: RenderFormat = 'text';
  let content = text;
  let title: string | undefined;
  let extracted: boolean | undefined;
  let fallbackReason: string | undefined;
  if (request.kind === 'html') {
    let converted = false;
    if (request.mode === 'full') {
      try {
        const page = htmlToMarkdown(text, request.url);
        ({ title, extracted } = page);
        content = page.markdown;
        format = 'markdown';
        converted = true;
      } catch (error) {
        fallbackReason = `the Markdown conversion failed (${describeError(error)})`;
      }
    }
    if (!converted) {
      const page = htmlToText(text);
      title = page.title;
      content = page.text;
      format = 'html-text';
    }
  } else if (request.kind === 'json') {
    format = 'json';
    content = text;
    if (request.mode === 'full') {
      try {
        content = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Malformed (or too deeply nested to print): the body as it came.
      }
    }
  }
  const body = neutraliseMarkers(content);
  const startIndex = Math.min(request.startIndex, body.length);
  let endIndex = safeEnd(body, startIndex + request.maxLength);
  // A one-character page that would split a surrogate pair takes the whole pair: always progress.
  if (endIndex <= startIndex && startIndex < body.length) endIndex = Math.min(body.length, startIndex + 2);
  return {
    format,
    ...(title === undefined ? {} : { title: neutraliseMarkers(title) }),
    ...(extracted === undefined ? {} : { extracted }),
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
    totalLength: body.length,
    startIndex,
    endIndex: Math.max(endIndex, startIndex),
    slice: body.slice(startIndex, Math.max(endIndex, startIndex)),
  };
}
