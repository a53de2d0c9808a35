// The argument ladder's steps 4 and 5 (see `parseToolArguments`): code fences and template
// wrappers around the JSON. Each is found with `indexOf` and one bounded scan: linear in the input.
import { type ArgumentRepair, addRepair } from './argument-ids';
import { LadderRefusal } from './ladder-refusal';

const TOOL_CALL_OPEN = '<tool_call>';
const TOOL_CALL_CLOSE = '</tool_call>';
const PYTHON_TAG = '<|python_tag|>';
const FENCE = '```';
const FENCE_LANGUAGE = /^[A-Za-z][\w+.-]*/;

/** Step 5's template wrappers: `<|python_tag|>`, `<tool_call>...</tool_call>` and a stray `</tool_call>`. */
export function stripWrappers(text: string, repairs: ArgumentRepair[]): string {
  let result = text;
  if (result.startsWith(PYTHON_TAG)) {
    result = result.slice(PYTHON_TAG.length).trim();
    addRepair(repairs, 'strip-template-wrapper');
  }
  if (result.startsWith(TOOL_CALL_OPEN)) {
    result = result.slice(TOOL_CALL_OPEN.length).trim();
    if (result.endsWith(TOOL_CALL_CLOSE)) result = result.slice(0, -TOOL_CALL_CLOSE.length).trim();
    addRepair(repairs, 'strip-template-wrapper');
  } else if (result.endsWith(TOOL_CALL_CLOSE)) {
    result = result.slice(0, -TOOL_CALL_CLOSE.length).trim();
    addRepair(repairs, 'strip-template-wrapper');
  }
  return result;
}

function unclosedFence(truncatedByLimit: boolean): never {
  if (truncatedByLimit) {
    throw new LadderRefusal(
      'truncated',
      'The arguments were cut off at the output token limit (a code fence was opened but never closed). Nothing was run. Send the call again with shorter arguments.',
    );
  }
  throw new LadderRefusal(
    'unclosed-code-fence',
    'The arguments open a ``` code fence that is never closed. Send the JSON object alone, without a code fence.',
  );
}

function proseBeforeFencedBlock(): never {
  throw new LadderRefusal(
    'prose-before-object',
    'The arguments have text before the ``` fenced block that may open a JSON value or string (a "{" or "[", or a quote left open on the fence\'s line), so the block cannot be read apart from it. Send only the JSON object, with nothing before it.',
  );
}

function multipleFences(): never {
  throw new LadderRefusal(
    'multiple-code-fences',
    'The arguments hold more than one ``` code fence, so it is unclear which one is meant. Send one JSON object, without code fences.',
  );
}

function isWordCharacter(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 127
  );
}

/**
 * What the first fence of the text, found mid-line at `start` (its backtick run ends at `runEnd`),
 * is. `opens`: it opens a block after a prefix on its line, as in "Action Input: ```json" and a
 * newline (the rest of the line is at most a language tag). `inline`: the same clean prefix, but
 * more text follows on its line (an inline fence in prose). `unknown`: the text before it could
 * hold a JSON value or string (a `{` or `[` anywhere before it, or a `"`, `'` or backtick its line
 * leaves open), so the fence may sit inside one. An apostrophe inside a word ("Here's") is prose,
 * not a quote, and quotes the line closes again (`the "path" is: ```json`) open no string. One scan
 * of the text before it and of its line: linear, and done once (only for the first fence).
 */
function classifyMidLineFence(text: string, start: number, runEnd: number): 'opens' | 'inline' | 'unknown' {
  const lineStart = text.lastIndexOf('\n', start) + 1;
  // Which of " ' ` the line has left open so far (a bit each), the others inside one ignored.
  let open = 0;
  for (let index = 0; index < start; index += 1) {
    const code = text.charCodeAt(index);
    // { [ anywhere before
    if (code === 123 || code === 91) return 'unknown';
    if (index < lineStart || !(code === 34 || code === 39 || code === 96)) continue;
    if (text.charCodeAt(index - 1) === 92) continue;
    const apostrophe =
      code === 39 &&
      isWordCharacter(text.charCodeAt(index - 1)) &&
      isWordCharacter(text.charCodeAt(index + 1));
    if (apostrophe) continue;
    const bit = code === 34 ? 1 : code === 39 ? 2 : 4;
    if (open === 0 || open === bit) open ^= bit;
  }
  if (open !== 0) return 'unknown';
  const lineEnd = text.indexOf('\n', runEnd);
  if (lineEnd === -1) return 'inline';
  const rest = text.slice(runEnd, lineEnd);
  const language = FENCE_LANGUAGE.exec(rest);
  return rest.slice(language?.[0].length ?? 0).trim() === '' ? 'opens' : 'inline';
}

interface FenceLines {
  /** Where the first (at most three) fences that open or close a block end. */
  ends: number[];
  /** The text's first fence is an inline one in prose, before any fence that opens or closes a block. */
  strayBefore: boolean;
  /** The text's first fence is mid-line after text that may hold a JSON value or string (`unknown`). */
  ambiguousBefore: boolean;
}

/**
 * Where the first three fences that start a line (after optional spaces or tabs) end. Three are
 * enough to know there are too many, so a flood of fences costs no more than three. The first
 * fence of the text also counts when it opens a block after a prefix on its line
 * ("Action Input: ```json"); later mid-line fences are text (a block can only open once).
 */
function findFenceLines(text: string): FenceLines {
  const ends: number[] = [];
  let strayBefore = false;
  let ambiguousBefore = false;
  let from = 0;
  let first = true;
  while (ends.length < 3) {
    const start = text.indexOf(FENCE, from);
    if (start === -1) break;
    let lineStart = start;
    while (lineStart > 0 && (text[lineStart - 1] === ' ' || text[lineStart - 1] === '\t')) lineStart -= 1;
    // Skip the rest of the backtick run: "````" is one fence, not two.
    from = start + FENCE.length;
    while (text[from] === '`') from += 1;
    if (lineStart === 0 || text[lineStart - 1] === '\n') {
      ends.push(start + FENCE.length);
    } else if (first) {
      const kind = classifyMidLineFence(text, start, from);
      if (kind === 'opens') ends.push(start + FENCE.length);
      else if (kind === 'inline') strayBefore = true;
      else ambiguousBefore = true;
    }
    first = false;
  }
  return { ends, strayBefore, ambiguousBefore };
}

/** Whether the fence ending at `end` is followed by a language tag (it opens a block, not closes one). */
function hasLanguageTag(text: string, end: number): boolean {
  let index = end;
  while (text[index] === '`') index += 1;
  const lineEnd = text.indexOf('\n', index);
  return FENCE_LANGUAGE.test(text.slice(index, lineEnd === -1 ? text.length : lineEnd));
}

/**
 * Step 4's code fences: one whole-input fence (also on one line), a fence only at the end, or one
 * fenced block after prose; refuses two or more fences, an unclosed one and `{`/`[` after the block.
 */
export function stripFences(text: string, repairs: ArgumentRepair[], truncatedByLimit: boolean): string {
  const first = text.charCodeAt(0);
  if (first === 123 || first === 91) {
    // Line-start fences further in may sit inside a string with raw newlines: only a fence that
    // ends the input, where no JSON value can end, is stripped.
    if (!text.endsWith(FENCE)) return text;
    addRepair(repairs, 'strip-trailing-code-fence');
    return text.slice(0, -FENCE.length).trimEnd();
  }
  if (!text.includes(FENCE)) return text;
  const { ends: fences, strayBefore, ambiguousBefore } = findFenceLines(text);
  if (fences.length === 1 && text.startsWith(FENCE) && text.length >= 6 && text.endsWith(FENCE)) {
    // A one-line fence: ```json {"a": 1}```
    const inner = text.slice(FENCE.length, -FENCE.length);
    const language = FENCE_LANGUAGE.exec(inner);
    addRepair(repairs, 'strip-code-fence');
    return (
      language && /^\s/.test(inner.slice(language[0].length)) ? inner.slice(language[0].length) : inner
    ).trim();
  }
  if (fences.length === 0) return text;
  // An inline fence in prose, then one on its own line: two fences, not an unclosed one (unless the
  // output was cut, which explains a missing fence better).
  // A fence after text that may hold a JSON value or string, then a fence line closing its block
  // (no language tag): the block is closed, but cannot be read apart from the text before it.
  if (fences.length === 1) {
    if (strayBefore && !truncatedByLimit) multipleFences();
    if (ambiguousBefore && !truncatedByLimit && !hasLanguageTag(text, fences[0] ?? 0))
      proseBeforeFencedBlock();
    unclosedFence(truncatedByLimit);
  }
  if (fences.length > 2) multipleFences();
  const [openEnd = 0, closeEnd = 0] = fences;
  const closeStart = closeEnd - FENCE.length;
  const closeLineEnd = text.indexOf('\n', closeEnd);
  const closeInfo = text.slice(closeEnd, closeLineEnd === -1 ? text.length : closeLineEnd);
  // A second fence line with a language is the opening of another block.
  if (closeInfo.trim() !== '') multipleFences();
  const after = closeLineEnd === -1 ? '' : text.slice(closeLineEnd);
  if (/[[{]/.test(after)) {
    throw new LadderRefusal(
      'trailing-content',
      'After the fenced block there is more text holding "{" or "[". Send exactly one JSON object and nothing else.',
    );
  }
  let body = text.slice(openEnd, closeStart);
  const language = FENCE_LANGUAGE.exec(body);
  if (language) body = body.slice(language[0].length);
  addRepair(
    repairs,
    text.slice(0, openEnd - FENCE.length).trim() === '' ? 'strip-code-fence' : 'extract-fenced-block',
  );
  return body.trim();
}
