import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArgumentRepair } from './argument-ids';
import { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_ARGUMENT_DEPTH } from './argument-limits';
import { parseToolArguments } from './parse-tool-arguments';

const jsonObject = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }),
  { maxKeys: 6 },
);

/** What the object is after one JSON round trip (`-0` becomes `0`). */
function canonical(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const indentation = fc.constantFrom(undefined, 2, '\t');

/** Asserts that the ladder reads `raw` as `object`, by exactly the repairs given, in order. */
function expectReadAs(raw: string, object: unknown, ...repairs: ArgumentRepair[]): void {
  expect(parseToolArguments(raw)).toEqual({ ok: true, value: canonical(object), repairs });
}

describe('argument ladder properties', () => {
  it('any JSON object round-trips unchanged with no repairs', () => {
    fc.assert(
      fc.property(jsonObject, indentation, (object, indent) => {
        expectReadAs(JSON.stringify(object, null, indent), object);
      }),
    );
  });

  it('any JSON object round-trips through a code fence', () => {
    fc.assert(
      fc.property(
        jsonObject,
        indentation,
        fc.constantFrom('json', 'JSON', ''),
        (object, indent, language) => {
          const raw = `\`\`\`${language}\n${JSON.stringify(object, null, indent)}\n\`\`\``;
          expectReadAs(raw, object, 'strip-code-fence');
        },
      ),
    );
  });

  it('any JSON object round-trips through a fence opened after a prefix on its line', () => {
    fc.assert(
      fc.property(
        jsonObject,
        indentation,
        fc.constantFrom('Action Input: ', 'Action Input:', 'Arguments -> ', 'Thought: ok.\nAction Input: '),
        fc.constantFrom('json', 'JSON', ''),
        (object, indent, prefix, language) => {
          const raw = `${prefix}\`\`\`${language}\n${JSON.stringify(object, null, indent)}\n\`\`\``;
          expectReadAs(raw, object, 'extract-fenced-block');
        },
      ),
    );
  });

  it('any JSON object round-trips when double-encoded', () => {
    fc.assert(
      fc.property(jsonObject, indentation, (object, indent) => {
        const raw = JSON.stringify(JSON.stringify(object, null, indent));
        expectReadAs(raw, object, 'decode-double-encoded');
      }),
    );
  });

  it('no strict prefix of a serialized object yields a value except by closing the root', () => {
    fc.assert(
      fc.property(jsonObject, indentation, (object, indent) => {
        const expected = canonical(object) as Record<string, unknown>;
        const serialized = JSON.stringify(object, null, indent);
        for (let length = 1; length < serialized.length; length += 1) {
          const result = parseToolArguments(serialized.slice(0, length));
          if (!result.ok) continue;
          expect(result.repairs).toEqual(['close-truncated-root']);
          // Closing the root keeps complete members only: each is exactly the original member.
          for (const [key, value] of Object.entries(result.value)) expect(value).toEqual(expected[key]);
          expect(parseToolArguments(serialized.slice(0, length), { finishReason: 'length' }).ok).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (raw) => {
        const result = parseToolArguments(raw);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });

  it('never throws on mangled JSON, and never reads it as an empty object unless it was one', () => {
    const pieces = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      ',',
      ':',
      ',,',
      '\\',
      '\\n',
      '\n',
      '//',
      '/*',
      '*/',
      '```',
      '```json\n',
      'True',
      'None',
      'NaN',
      '-',
      '0',
      '01',
      'a',
      '\u201c',
      '\u201d',
      '<tool_call>',
      '</tool_call>',
      ' ',
      '\uFEFF',
    );
    const mangled = fc
      .tuple(jsonObject, fc.array(fc.tuple(fc.nat(), fc.nat(3), pieces), { maxLength: 6 }))
      .map(([object, edits]) => {
        let text = JSON.stringify(object);
        for (const [at, removed, piece] of edits) {
          const position = at % (text.length + 1);
          text = text.slice(0, position) + piece + text.slice(position + removed);
        }
        return text;
      });
    fc.assert(
      fc.property(mangled, fc.constantFrom(undefined, 'stop', 'length'), (raw, finishReason) => {
        const result = parseToolArguments(raw, { finishReason, toolName: 't', declaredProperties: ['a'] });
        if (result.ok && Object.keys(result.value).length === 0) {
          expect(
            (['no-arguments', 'unwrap-envelope'] as const).some((repair) =>
              result.repairs.includes(repair),
            ) ||
              // `{}` in the input, with whitespace (spelled out or as two-character `\n`) or comments
              // between the braces (`{//...\n}` was found by this property: an empty object, read right).
              /\{(\s|\\[nrt]|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*\}/.test(raw),
          ).toBe(true);
        }
        if (!result.ok) expect(result.reason).toMatch(/^[a-z]+(-[a-z]+)*$/);
      }),
      // A fixed seed: CI sees the same 500 cases every run (a new counterexample is a finding to
      // look into, found by raising numRuns locally, not a flaky failure).
      { numRuns: 500, seed: 20261203 },
    );
  });

  it('never throws on inputs at the caps', () => {
    const near = MAX_TOOL_ARGUMENT_BYTES - 16;
    const inputs = [
      `{"a":"${'x'.repeat(near)}"}`,
      `{"a":"${'\\'.repeat(near)}`,
      `{"a":"${'\\"'.repeat(near / 2)}"}`,
      '{}'.repeat(near / 2),
      '{"a":1}'.repeat(near / 7),
      `{"a":[${'1,'.repeat(near / 2)}`,
      `${'{"a":'.repeat(MAX_TOOL_ARGUMENT_DEPTH - 1)}{'a':[${'1,'.repeat(1000)}`,
      `${'['.repeat(MAX_TOOL_ARGUMENT_DEPTH)}${' '.repeat(near / 2)}`,
      `'${"\\'".repeat(near / 2)}`,
      `Here: ${'```\n'.repeat(near / 4)}`,
      `Action Input: ${'a```'.repeat(near / 4)}`,
      `Action Input: ${'```'.repeat(near / 3)}`,
      `Action Input: ${' '.repeat(near / 2)}\`\`\`json\n${'x'.repeat(near / 2)}`,
      `{${'a:1,'.repeat(near / 4)}}`,
      `{"a":"${'\n'.repeat(near)}"}`,
    ];
    for (const raw of inputs) {
      const result = parseToolArguments(raw);
      expect(typeof result.ok).toBe('boolean');
    }
  });
});
