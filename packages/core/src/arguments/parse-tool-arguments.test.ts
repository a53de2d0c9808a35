import { afterAll, describe, expect, it } from 'vitest';
import { ARGUMENT_REFUSAL_REASONS, ARGUMENT_REPAIRS, type ArgumentRepair } from './argument-ids';
import {
  MAX_TOOL_ARGUMENT_BYTES,
  MAX_TOOL_ARGUMENT_DEPTH,
  MAX_TOOL_ARGUMENT_VALUES,
} from './argument-limits';
import {
  type ParseToolArgumentsOptions,
  type ParseToolArgumentsResult,
  parseToolArguments as parseLadder,
} from './parse-tool-arguments';

// Every id the ladder emits over this file's corpus, checked against the exported id lists below.
const emittedRepairs = new Set<string>();
const emittedRefusals = new Set<string>();

function parseToolArguments(raw: string, options?: ParseToolArgumentsOptions): ParseToolArgumentsResult {
  const result = parseLadder(raw, options);
  if (result.ok) for (const repair of result.repairs) emittedRepairs.add(repair);
  else emittedRefusals.add(result.reason);
  return result;
}

afterAll(() => {
  // Each id emitted is listed, and the corpus reaches every listed id (the schema's
  // `invalid-arguments` comes from validation, not from the ladder).
  expect([...emittedRepairs].sort()).toEqual([...ARGUMENT_REPAIRS].sort());
  expect([...emittedRefusals].sort()).toEqual(
    ARGUMENT_REFUSAL_REASONS.filter((reason) => reason !== 'invalid-arguments').sort(),
  );
});

function repaired(raw: string, options?: ParseToolArgumentsOptions) {
  const result = parseToolArguments(raw, options);
  if (!result.ok) throw new Error(`expected a value, got ${result.reason}: ${result.message}`);
  return result;
}

/** Asserts that the ladder reads `raw` as this file's `{ a: 1 }` by exactly the one repair given. */
function expectReadAsA1(raw: string, repair: ArgumentRepair): void {
  expect(repaired(raw)).toEqual({ ok: true, value: { a: 1 }, repairs: [repair] });
}

function refused(raw: string, options?: ParseToolArgumentsOptions) {
  const result = parseToolArguments(raw, options);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result;
}

const envelopeOptions = { toolName: 'write_file', declaredProperties: ['path', 'content'] };

describe('step 1: size and depth caps', () => {
  it('refuses arguments over 1 MB before parsing', () => {
    const raw = `{"content":"${'a'.repeat(MAX_TOOL_ARGUMENT_BYTES)}"}`;
    const result = refused(raw);
    expect(result.reason).toBe('too-large');
    expect(result.message).toMatch(/1 MB/);
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 400,000 three-byte characters: under 1 MB in characters, over it in bytes.
    expect(refused(`{"content":"${'€'.repeat(400_000)}"}`).reason).toBe('too-large');
    expect(repaired(`{"content":"${'€'.repeat(300_000)}"}`).value.content).toHaveLength(300_000);
  });

  it(`accepts ${MAX_TOOL_ARGUMENT_DEPTH} levels of nesting and refuses one more`, () => {
    const nest = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;
    expect(repaired(nest(MAX_TOOL_ARGUMENT_DEPTH)).repairs).toEqual([]);
    expect(refused(nest(MAX_TOOL_ARGUMENT_DEPTH + 1)).reason).toBe('too-deep');
  });

  it('refuses deep nesting of arrays, and in tolerant input too', () => {
    expect(refused(`{"a":${'['.repeat(70)}${']'.repeat(70)}}`).reason).toBe('too-deep');
    expect(refused(`{'a':${'['.repeat(70)}`).reason).toBe('too-deep');
  });

  it(`accepts ${MAX_TOOL_ARGUMENT_VALUES} values and refuses one more, strict or tolerant; commas in strings do not count`, () => {
    const values = (count: number, quote = '"') =>
      `{${quote}todos${quote}:[${Array(count).fill(1).join(',')}]}`;
    expect(repaired(values(MAX_TOOL_ARGUMENT_VALUES)).value.todos).toHaveLength(MAX_TOOL_ARGUMENT_VALUES);
    for (const raw of [values(MAX_TOOL_ARGUMENT_VALUES + 1), values(MAX_TOOL_ARGUMENT_VALUES + 1, "'")]) {
      const result = refused(raw);
      expect(result.reason).toBe('too-large');
      expect(result.message).toBe(
        `The arguments hold more than ${MAX_TOOL_ARGUMENT_VALUES} values, so they were not read and nothing was run. Send fewer values, e.g. split the work over several calls.`,
      );
    }
    const commas = JSON.stringify({ csv: ','.repeat(MAX_TOOL_ARGUMENT_VALUES * 2) });
    expect(repaired(commas).value.csv).toHaveLength(MAX_TOOL_ARGUMENT_VALUES * 2);
  });

  it('does not count brackets inside strings', () => {
    const raw = JSON.stringify({ code: '{'.repeat(100) });
    expect(repaired(raw).value).toEqual({ code: '{'.repeat(100) });
  });
});

describe('step 2: no arguments', () => {
  it.each([[''], ['   \n'], ['null'], [' None ']])('reads %j as no arguments', (raw) => {
    expect(repaired(raw)).toEqual({ ok: true, value: {}, repairs: ['no-arguments'] });
  });

  it('refuses an empty string when the output was cut at the token limit', () => {
    expect(refused('', { finishReason: 'length' }).reason).toBe('truncated');
  });
});

describe('step 3: strict JSON and double encoding', () => {
  it('returns clean JSON unchanged with no repairs', () => {
    expect(repaired('{"path": "a.md", "lines": [1, 2], "deep": {"x": null}}')).toEqual({
      ok: true,
      value: { path: 'a.md', lines: [1, 2], deep: { x: null } },
      repairs: [],
    });
  });

  it('keeps a __proto__ key as an own property, like JSON.parse', () => {
    const { value } = repaired('{"__proto__": {"polluted": true}}');
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes a JSON string holding an object once', () => {
    const raw = JSON.stringify(JSON.stringify({ path: 'a.md' }));
    expect(repaired(raw)).toEqual({ ok: true, value: { path: 'a.md' }, repairs: ['decode-double-encoded'] });
  });

  it('decodes only once: a triple-encoded object is refused', () => {
    const raw = JSON.stringify(JSON.stringify(JSON.stringify({ path: 'a.md' })));
    expect(refused(raw).reason).toBe('not-an-object');
  });

  it('applies the ladder to the decoded string', () => {
    const raw = JSON.stringify("{'path': 'a.md',}");
    expect(repaired(raw).repairs).toEqual([
      'decode-double-encoded',
      'single-quoted-strings',
      'trailing-comma',
    ]);
  });

  it('refuses a JSON string that does not hold an object', () => {
    expect(refused('"just text"').reason).toBe('not-an-object');
    expect(refused('"{\\"a\\": "').reason).toBe('truncated');
  });
});

describe('step 4: BOM and code fences', () => {
  it('strips a byte order mark', () => {
    expectReadAsA1('\uFEFF{"a": 1}', 'strip-bom');
  });

  it.each([
    ['```json\n{"a": 1}\n```'],
    ['```\n{"a": 1}\n```'],
    ['```JSON\n{"a": 1}\n```\n'],
    ['```json {"a": 1}```'],
  ])('strips a whole-input fence: %j', (raw) => {
    expectReadAsA1(raw, 'strip-code-fence');
  });

  it('strips a trailing-only fence', () => {
    expectReadAsA1('{"a": 1}\n```', 'strip-trailing-code-fence');
  });

  it('extracts a single fenced block after prose (and drops prose after it)', () => {
    const raw = 'Here are the arguments:\n```json\n{"a": 1}\n```\nLet me know.';
    expectReadAsA1(raw, 'extract-fenced-block');
  });

  it('keeps fences that are part of a string value', () => {
    const value = { content: '# Notes\n```ts\nconst a = 1;\n```\n' };
    expect(repaired(`\`\`\`json\n${JSON.stringify(value)}\n\`\`\``).value).toEqual(value);
    expect(repaired(JSON.stringify(value)).value).toEqual(value);
  });

  it('refuses two or more fenced blocks', () => {
    const raw = '```json\n{"a": 1}\n```\nor\n```json\n{"a": 2}\n```';
    const result = refused(raw);
    expect(result.reason).toBe('multiple-code-fences');
    expect(refused('Either:\n```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```').reason).toBe(
      'multiple-code-fences',
    );
  });

  it('refuses a fence that is never closed', () => {
    expect(refused('```json\n{"a": 1}').reason).toBe('unclosed-code-fence');
    expect(refused('```json\n{"a": 1}', { finishReason: 'length' }).reason).toBe('truncated');
  });

  it('refuses prose before a bare object', () => {
    const result = refused('Sure! Here you go: {"a": 1}');
    expect(result.reason).toBe('prose-before-object');
    expect(result.message).toMatch(/only the JSON object/);
    expect(refused('-> {"a": 1}').reason).toBe('prose-before-object');
  });

  it('refuses a fenced block followed by another object', () => {
    expect(refused('Call:\n```json\n{"a": 1}\n```\nthen {"a": 2}').reason).toBe('trailing-content');
  });

  it('refuses an empty fence rather than reading it as no arguments', () => {
    expect(refused('```json\n```').reason).toBe('invalid-json');
  });
});

describe('step 4: a fence opened after a prefix on its line', () => {
  it.each([
    ['Action Input: ```json\n{"a": 1}\n```'],
    ['Action Input: ```\n{"a": 1}\n```'],
    ['Action Input:```JSON  \r\n{"a": 1}\r\n```'],
    ['Thought: read it.\nAction: read_file\nAction Input: ```json\n{"a": 1}\n```\nObservation:'],
    ['Action Input: ```json\n{\n  "a": 1,\n}\n```'],
  ])('extracts the block of %j', (raw) => {
    const result = repaired(raw);
    expect(result.value).toEqual({ a: 1 });
    expect(result.repairs[0]).toBe('extract-fenced-block');
  });

  it('keeps a fenced code sample inside the value', () => {
    const value = { content: 'run:\n```sh\nls\n```\n' };
    expect(repaired(`Action Input: \`\`\`json\n${JSON.stringify(value)}\n\`\`\``).value).toEqual(value);
  });

  it('names the right reason when such a fence is never closed', () => {
    expect(refused('Action Input: ```json\n{"a": 1}').reason).toBe('unclosed-code-fence');
    expect(refused('Action Input: ```json\n{"a": 1', { finishReason: 'length' }).reason).toBe('truncated');
  });

  it('refuses two blocks, or another object after the block', () => {
    expect(refused('Action Input: ```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```').reason).toBe(
      'multiple-code-fences',
    );
    expect(refused('Action Input: ```json\n{"a": 1}\n```\nor {"a": 2}').reason).toBe('trailing-content');
    // Raw newlines in a string put a line-start fence inside the block: three fences.
    expect(refused('Action Input: ```json\n{"a": "x\n```\ny"}\n```').reason).toBe('multiple-code-fences');
  });

  it('reads an inline fence in prose, then a fenced block, as two fences', () => {
    expect(refused('Action Input: ```json {"a": 1}\n```').reason).toBe('multiple-code-fences');
    expect(refused('Action Input: ```json {"a": 1}\n```', { finishReason: 'length' }).reason).toBe(
      'truncated',
    );
    // An inline fence opened and closed on its line is prose: the block after it is read.
    expect(repaired('Run ```ls``` first, with:\n```json\n{"a": 1}\n```').value).toEqual({ a: 1 });
  });

  it('never opens a block at a fence that may sit inside a JSON value, and says why', () => {
    // A `{` before it, or a quote its line leaves open: the fence may be inside a string. The block
    // is closed, so the reason is the text before it, not an unclosed fence.
    expect(refused('Action Input: {"a": "see ```js\nx\n```"}').reason).toBe('prose-before-object');
    expect(refused('Input {\nAction Input: ```json\n{"a": 1}\n```').reason).toBe('prose-before-object');
    expect(refused('He said "see ```json\n{"a": 1}\n```').reason).toBe('prose-before-object');
    expect(refused('Use \'this: ```json\n{"a": 1}\n```').reason).toBe('prose-before-object');
    expect(refused('He said "see ```json\n{"a": 1}\n```').message).toContain(
      'text before the ``` fenced block',
    );
    // Cut at the token limit: as for any other fence.
    expect(refused('He said "see ```json\n{"a": 1}\n```', { finishReason: 'length' }).reason).toBe(
      'truncated',
    );
  });

  it.each([
    ['Here\'s the input: ```json\n{"a": 1}\n```'],
    ['I\'ll call it with: ```json\n{"a": 1}\n```'],
    ['He said "x": ```json\n{"a": 1}\n```'],
    ["The 'path' field, it's this: ```json\n{\"a\": 1}\n```"],
    ['Run `ls` with: ```json\n{"a": 1}\n```'],
  ])('extracts the block after a prefix whose apostrophes are in words and whose quotes are closed: %j', (raw) => {
    const result = repaired(raw);
    expect(result.value).toEqual({ a: 1 });
    expect(result.repairs[0]).toBe('extract-fenced-block');
  });

  it('names unclosed-code-fence only for a fence never closed, after an apostrophe too', () => {
    expect(refused('Here\'s the input: ```json\n{"a": 1}').reason).toBe('unclosed-code-fence');
  });

  it('counts only the first fence of the text as a possible mid-line opening', () => {
    // The second mid-line fence is text: one fence line remains, never closed.
    expect(refused('```sh ls```\nAction Input: ```json\n{"a": 1}').ok).toBe(false);
  });
});

describe('step 5: template wrappers and call envelopes', () => {
  it.each([
    ['<tool_call>{"a": 1}</tool_call>'],
    ['<tool_call>\n{"a": 1}\n</tool_call>'],
    ['{"a": 1}</tool_call>'],
    ['<|python_tag|>{"a": 1}'],
  ])('strips the wrapper in %j', (raw) => {
    expectReadAsA1(raw, 'strip-template-wrapper');
  });

  it('unwraps an envelope naming the called tool', () => {
    const raw = '{"name": "write_file", "arguments": {"path": "a.md"}}';
    expect(repaired(raw, envelopeOptions)).toEqual({
      ok: true,
      value: { path: 'a.md' },
      repairs: ['unwrap-envelope'],
    });
    const parameters = '{"name": "write_file", "parameters": {"path": "a.md"}}';
    expect(repaired(parameters, envelopeOptions).value).toEqual({ path: 'a.md' });
  });

  it('unwraps an envelope whose arguments are a JSON string', () => {
    const raw = JSON.stringify({ name: 'write_file', arguments: JSON.stringify({ path: 'a.md' }) });
    expect(repaired(raw, envelopeOptions).value).toEqual({ path: 'a.md' });
  });

  it('unwraps a lone { "arguments": {...} }', () => {
    expect(repaired('{"arguments": {"path": "a.md"}}', envelopeOptions).value).toEqual({ path: 'a.md' });
  });

  it('refuses an envelope naming another tool', () => {
    const result = refused('{"name": "delete_file", "arguments": {"path": "a.md"}}', envelopeOptions);
    expect(result.reason).toBe('envelope-for-other-tool');
    expect(result.message).toContain('"delete_file"');
  });

  it('leaves envelope-shaped arguments alone when the tool declares those properties', () => {
    const options = { toolName: 'run', declaredProperties: ['name', 'arguments'] };
    const raw = '{"name": "other", "arguments": {"x": 1}}';
    expect(repaired(raw, options)).toEqual({
      ok: true,
      value: { name: 'other', arguments: { x: 1 } },
      repairs: [],
    });
    const lone = { toolName: 'run', declaredProperties: ['arguments'] };
    expect(repaired('{"arguments": {"x": 1}}', lone).value).toEqual({ arguments: { x: 1 } });
  });

  it('leaves an envelope with extra keys, or without declared properties, alone', () => {
    const extra = '{"name": "write_file", "arguments": {"path": "a.md"}, "id": 1}';
    expect(repaired(extra, envelopeOptions).value).toHaveProperty('id', 1);
    const raw = '{"name": "write_file", "arguments": {"path": "a.md"}}';
    expect(repaired(raw, { toolName: 'write_file' }).value).toHaveProperty('name', 'write_file');
  });
});

describe('step 6: the tolerant tokenizer', () => {
  it.each([
    ['trailing-comma', '{"a": [1, 2,], "b": 3,}', { a: [1, 2], b: 3 }],
    ['single-quoted-strings', `{'a': 'it said "hi"'}`, { a: 'it said "hi"' }],
    ['python-literals', '{"a": True, "b": False, "c": None}', { a: true, b: false, c: null }],
    ['unquoted-keys', '{path: "a.md", $n: 1, _x2: 2}', { path: 'a.md', $n: 1, _x2: 2 }],
    ['strip-comments', '{"a": 1, // the count\n /* block */ "b": 2}', { a: 1, b: 2 }],
    ['curly-quotes', '{\u201cpath\u201d: \u201ca.md\u201d}', { path: 'a.md' }],
    ['escape-control-characters', '{"content": "line 1\nline 2\ttab"}', { content: 'line 1\nline 2\ttab' }],
    ['escaped-whitespace-outside-strings', '{\\n  "a": 1\\n}', { a: 1 }],
    ['escaped-apostrophe', '{"a": "it\\\'s"}', { a: "it's" }],
  ])('repairs %s', (repair, raw, value) => {
    expect(repaired(raw)).toEqual({ ok: true, value, repairs: [repair] });
  });

  it('keeps invalid escapes literally when the string has no other escapes than \\\\ and \\"', () => {
    expect(repaired('{"pattern": "\\d+\\.\\d+", "q": "say \\"hi\\" \\\\ \\w"}')).toEqual({
      ok: true,
      value: { pattern: '\\d+\\.\\d+', q: 'say "hi" \\ \\w' },
      repairs: ['double-invalid-escapes'],
    });
  });

  it('refuses a string mixing invalid and valid escapes as ambiguous', () => {
    const result = refused('{"path": "C:\\Users\\new"}');
    expect(result.reason).toBe('ambiguous-escapes');
    expect(result.message).toContain('/path');
    expect(refused('{"a": "\\d\\u0041"}').reason).toBe('ambiguous-escapes');
  });

  it('refuses a unicode escape with digits missing instead of keeping or guessing it', () => {
    const result = refused('{"to": "bo", "text": "caf\\u00e"}');
    expect(result.reason).toBe('incomplete-unicode-escape');
    expect(result.message).toContain('\\u00e');
    expect(refused('{"text": "\\u12x4"}').reason).toBe('incomplete-unicode-escape');
  });

  it('keeps a backslash-u with no hex digits literally, like any invalid escape', () => {
    expect(parseToolArguments('{"path": "C:\\users"}')).toEqual({
      ok: true,
      value: { path: 'C:\\users' },
      repairs: ['double-invalid-escapes'],
    });
  });

  it('changes string content only to keep control characters and invalid escapes', () => {
    const raw = `{'text': "// not a comment, /* nor this */ True, 'quoted', trailing,]"}`;
    expect(repaired(raw).value).toEqual({
      text: "// not a comment, /* nor this */ True, 'quoted', trailing,]",
    });
  });

  it.each([
    ['NaN', '{"a": NaN}'],
    ['Infinity', '{"a": Infinity}'],
    ['-Infinity', '{"a": -Infinity}'],
    ['undefined', '{"a": undefined}'],
  ])('refuses %s', (literal, raw) => {
    const result = refused(raw);
    expect(result.reason).toBe('non-json-literal');
    expect(result.message).toContain(literal);
  });

  it('refuses leading-zero numbers', () => {
    expect(refused('{"a": 007}').reason).toBe('leading-zero-number');
    expect(refused("{'a': -01}").reason).toBe('leading-zero-number');
  });

  it.each([
    ['{"a": 1,, "b": 2}'],
    ['{, "a": 1}'],
    ['{"a": [1,, 2]}'],
    ['{"a": [,1]}'],
  ])('refuses an empty element in %j', (raw) => {
    expect(refused(raw).reason).toBe('empty-element');
  });

  it('refuses unquoted values and other broken syntax as invalid-json', () => {
    expect(refused('{"a": hello}').reason).toBe('invalid-json');
    expect(refused('{"a" 1}').reason).toBe('invalid-json');
    expect(refused('{"a": 1 "b": 2}').reason).toBe('invalid-json');
    expect(refused('{"a": +1}').reason).toBe('invalid-json');
    expect(refused('{"a": .5}').reason).toBe('invalid-json');
    expect(refused('not json at all').reason).toBe('invalid-json');
  });
});

describe('step 7: text after the root object', () => {
  it.each([
    ['{"a": 1} Let me know if you need more.'],
    ['{"a": 1};'],
    ['{"a": 1}}'],
    ['{"a": 1}]}'],
  ])('drops %j after a complete root', (raw) => {
    expectReadAsA1(raw, 'drop-trailing-text');
  });

  it('refuses trailing text holding { or [', () => {
    expect(refused('{"a": 1} and also [2]').reason).toBe('trailing-content');
    expect(refused('{"a": 1} then {"b"').reason).toBe('trailing-content');
  });
});

describe('step 8: concatenated root objects', () => {
  it('keeps one of several identical objects', () => {
    expectReadAsA1('{"a": 1}{"a": 1}\n{"a": 1}', 'deduplicate-concatenated');
  });

  it('refuses different objects, saying how many', () => {
    const result = refused('{"a": 1}\n{"a": 2}\n{"a": 3}');
    expect(result.reason).toBe('concatenated-objects');
    expect(result.message).toBe('3 argument objects were concatenated; call the tool once per object.');
  });

  it('does not close a truncated later object', () => {
    expect(refused('{"a": 1}{"a": 1').reason).toBe('truncated');
  });
});

describe('step 9: truncation', () => {
  it.each([
    ['{"a": "x"', { a: 'x' }],
    ['{"a": 1, "b": [1, 2]', { a: 1, b: [1, 2] }],
    ['{"a": {"b": true}', { a: { b: true } }],
    ['{"a": 12 ', { a: 12 }],
    ['{"a": null', { a: null }],
  ])('closes the root of %j', (raw, value) => {
    expect(repaired(raw)).toEqual({ ok: true, value, repairs: ['close-truncated-root'] });
  });

  it.each([
    ['inside a string', '{"a": "x'],
    ['inside a key', '{"a": 1, "b'],
    ['inside an unquoted key', '{"a": 1, b'],
    ['inside a number', '{"a": 12'],
    ['inside a literal', '{"a": tru'],
    ['after a colon', '{"a":'],
    ['after a comma', '{"a": 1,'],
    ['after a key', '{"a"'],
    ['in an open nested object', '{"a": {"b": "c"'],
    ['in an open nested array', '{"a": ["b"'],
    ['right after the root brace', '{'],
    ['inside an escape', '{"a": "x\\'],
    ['inside a unicode escape', '{"a": "\\u00'],
    ['inside a block comment', '{"a": 1 /* note'],
  ])('refuses a cut %s', (_where, raw) => {
    expect(refused(raw).reason).toBe('truncated');
  });

  it.each([
    ['length'],
    ['max_output_tokens'],
  ])('never closes the root when finishReason is %s', (finishReason) => {
    const result = refused('{"path": "a.md", "content": "done"', { finishReason });
    expect(result.reason).toBe('truncated');
    expect(result.message).toMatch(/output token limit/);
  });

  it('still accepts complete arguments when finishReason is length', () => {
    expect(repaired('{"a": 1}', { finishReason: 'length' }).value).toEqual({ a: 1 });
  });
});

describe('step 10: the root must be an object', () => {
  it.each([
    ['[1, 2]'],
    ['42'],
    ['true'],
    ['"text"'],
    ["['a']"],
    ['```json\n[1]\n```'],
  ])('refuses %j', (raw) => {
    const result = refused(raw);
    expect(result.reason).toBe('not-an-object');
    expect(result.message).toMatch(/not a JSON object/);
  });
});

describe('duplicate keys', () => {
  it('refuses a duplicate key that JSON.parse would silently collapse, naming it and its object', () => {
    const result = refused('{"items": [{"name": "a", "name": "b"}]}');
    expect(result.reason).toBe('duplicate-key');
    expect(result.message).toContain('The key /items/0/name appears more than once');
  });

  it('refuses duplicates in tolerant input too', () => {
    expect(refused("{a: 1, 'a': 2}").reason).toBe('duplicate-key');
  });

  it('does not mistake colons inside strings for members', () => {
    expect(repaired('{"url": "http://x:80/a:b", "t": "12:30"}').repairs).toEqual([]);
  });
});

describe('finite numbers only', () => {
  it.each([
    ['strict JSON', '{"price": 1e999}', '/price', '1e999'],
    ['strict JSON, negative', '{"price": -1e999}', '/price', '-1e999'],
    ['strict JSON, in an array', '{"items": [{"n": 1}, {"n": 2E+400}]}', '/items/1/n', '2E+400'],
    ['strict JSON, an array of numbers', '{"values": [1, 2, 1e309]}', '/values/2', '1e309'],
    ['strict JSON, digits only', `{"n": 1${'0'.repeat(400)}}`, '/n', '1000000000'],
    ['tolerant input', "{price: 1e999, 'a': 1,}", '/price', '1e999'],
    ['a double-encoded object', JSON.stringify('{"price": 1e999}'), '/price', '1e999'],
    ['a fenced object', '```json\n{"a": {"b": 9e9999}}\n```', '/a/b', '9e9999'],
  ])('refuses a number that overflows to Infinity in %s, naming it by its JSON pointer', (_, raw, path, literal) => {
    const result = refused(raw);
    expect(result.reason).toBe('non-finite-number');
    expect(result.path).toBe(path);
    expect(result.message).toMatch(/^number is not finite \(/);
    expect(result.message).toContain(`${literal}`);
    expect(result.message.length).toBeLessThan(300);
  });

  it('keeps the largest finite numbers, and numbers that underflow to zero, as JSON reads them', () => {
    expect(repaired('{"max": 1.7976931348623157e308, "min": -1.7976931348623157e308}').value).toEqual({
      max: Number.MAX_VALUE,
      min: -Number.MAX_VALUE,
    });
    // 1e-999 is 0 after any JSON round trip as well: the value validated is the value stored.
    expect(repaired('{"tiny": 1e-999}').value).toEqual({ tiny: 0 });
    expect(JSON.parse(JSON.stringify(repaired('{"tiny": 1e-999}').value))).toEqual({ tiny: 0 });
  });
});

describe('never throws, never invents', () => {
  it('refuses a non-string input', () => {
    expect(refused(42 as unknown as string).reason).toBe('invalid-json');
  });

  it('never reads broken input as an empty object', () => {
    for (const raw of ['{', '{,}', '{"a"', '```\n```', '<tool_call></tool_call>', '{"": ', '}']) {
      const result = parseToolArguments(raw);
      expect(result.ok ? result.value : result.reason).not.toEqual({});
    }
  });
});
