import { startDeadline } from '../start-deadline';
import type { FetchedPage } from './fetch-page';
import type { RenderMode } from './render-page';
import { type RenderOutcome, renderInWorker } from './render-pool';

/** What rendering a fetched page needs besides the page. */
export interface RenderFetchedPageOptions {
  /** The first character of the rendered content to return. */
  startIndex: number;
  /** The most characters to return. */
  maxLength: number;
  /** The whole call's time limit (`timeoutMs`), in ms. */
  timeoutMs: number;
  /** When the call started (`performance.now()`): rendering gets what is left of `timeoutMs`. */
  startedAt: number;
  /** The limit of the Markdown conversion itself, within what is left. */
  conversionTimeoutMs: number;
  /** The call's signal. */
  signal: AbortSignal;
}

/** How rendering went, and why HTML was read as plain text instead, when it was. */
export interface FetchedPageRendering {
  /** The rendered page, or why there is none. */
  outcome: RenderOutcome;
  /** Why HTML (or JSON) was read as plain text: its conversion missed its deadline or failed. */
  conversionFallback?: string;
}

/**
 * Renders a fetched page in a worker thread under what is left of the call's time limit, the
 * conversion itself under `conversionTimeoutMs`; HTML (or JSON) whose conversion misses it or fails
 * is read again as plain text with the time still left.
 *
 * Contract: never throws for a page that cannot be rendered: the outcome says why.
 */
export async function renderFetchedPage(
  page: FetchedPage,
  options: RenderFetchedPageOptions,
): Promise<FetchedPageRendering> {
  const { startIndex, maxLength, timeoutMs, startedAt } = options;
  const remaining = timeoutMs - (performance.now() - startedAt);
  const deadline = startDeadline(Math.max(1, Math.ceil(remaining)), options.signal);
  const render = (mode: RenderMode, budgetMs: number) =>
    renderInWorker(
      {
        kind: page.kind,
        mode,
        body: page.body,
        ...(page.charset === undefined ? {} : { charset: page.charset }),
        url: page.url,
        startIndex,
        maxLength,
      },
      { conversionTimeoutMs: Math.max(1, Math.ceil(budgetMs)), signal: deadline.signal },
    );
  try {
    const outcome = await render('full', options.conversionTimeoutMs);
    if (outcome.ok || outcome.failure === 'aborted' || page.kind === 'text') return { outcome };
    return {
      outcome: await render('plain', timeoutMs - (performance.now() - startedAt)),
      conversionFallback: outcome.message,
    };
  } finally {
    deadline.clear();
  }
}
