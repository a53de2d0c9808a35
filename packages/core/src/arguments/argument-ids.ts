/**
 * Every repair the argument ladder can apply, as the stable kebab-case ids that `tool-call-end`'s
 * `repairs`, a call's `details.argumentRepairs` and telemetry carry. A test drives the ladder over
 * its corpus and checks that every id it emits is listed here.
 */
export const ARGUMENT_REPAIRS = [
  'no-arguments',
  'strip-bom',
  'strip-template-wrapper',
  'strip-code-fence',
  'strip-trailing-code-fence',
  'extract-fenced-block',
  'unwrap-envelope',
  'decode-double-encoded',
  'drop-trailing-text',
  'deduplicate-concatenated',
  'strip-comments',
  'escaped-whitespace-outside-strings',
  'python-literals',
  'single-quoted-strings',
  'curly-quotes',
  'unquoted-keys',
  'trailing-comma',
  'escape-control-characters',
  'escaped-apostrophe',
  'double-invalid-escapes',
  'close-truncated-root',
] as const;

/** One repair the argument ladder applied (an element of `ARGUMENT_REPAIRS`). */
export type ArgumentRepair = (typeof ARGUMENT_REPAIRS)[number];

/**
 * Why arguments were refused, as the stable kebab-case ids of `ToolArgumentsError.reason` and
 * telemetry: the argument ladder's refusals, then `invalid-arguments` for arguments that parsed but
 * do not match the tool's schema.
 */
export const ARGUMENT_REFUSAL_REASONS = [
  'too-large',
  'too-deep',
  'truncated',
  'unclosed-code-fence',
  'multiple-code-fences',
  'trailing-content',
  'not-an-object',
  'envelope-for-other-tool',
  'non-finite-number',
  'duplicate-key',
  'invalid-json',
  'prose-before-object',
  'concatenated-objects',
  'empty-element',
  'non-json-literal',
  'leading-zero-number',
  'ambiguous-escapes',
  'incomplete-unicode-escape',
  'invalid-arguments',
] as const;

/** Why arguments were refused (an element of `ARGUMENT_REFUSAL_REASONS`). */
export type ArgumentRefusalReason = (typeof ARGUMENT_REFUSAL_REASONS)[number];

/** A refusal of the argument ladder itself: every reason but the schema's `invalid-arguments`. */
export type LadderRefusalReason = Exclude<ArgumentRefusalReason, 'invalid-arguments'>;

/** Appends `repair` unless it is listed already: the ladder reports each repair once, in the order first applied. */
export function addRepair(repairs: ArgumentRepair[], repair: ArgumentRepair): void {
  if (!repairs.includes(repair)) repairs.push(repair);
}
