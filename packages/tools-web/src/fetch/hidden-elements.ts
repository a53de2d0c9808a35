/**
 * Elements whose content a reader of the page never sees as text (code, styles, embedded
 * documents, graphics): both the Markdown and the plain-text conversion drop them, each adding the
 * elements only its own input can hold.
 */
export const HIDDEN_ELEMENTS = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'svg',
  'canvas',
] as const;
