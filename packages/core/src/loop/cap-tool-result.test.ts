import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResultContentPart } from '../tool/worker-agent-tool';
import {
  capToolResult,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES,
} from './cap-tool-result';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const NOTE =
  /\n\n\[\.\.\. (\d+) bytes cut from the middle of this result: it had (\d+) bytes and at most (\d+) are shown\. If the tool takes an offset, a range or a page, call it again for the part you need\.\]\n\n/;

/** True when the text holds a surrogate that is not half of a pair. */
function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

function textOf(content: string | ToolResultContentPart[]): string {
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('capToolResult: strings', () => {
  it('returns the very same result when the text fits', () => {
    const result = { content: 'x'.repeat(1000), details: { a: 1 } };
    expect(capToolResult(result, 1000).result).toBe(result);
    expect(capToolResult(result, 1000).cut).toBeUndefined();
    // A text part costs its text and a 32-byte envelope.
    const parts = { content: [{ type: 'text' as const, text: 'é'.repeat(484) }] };
    expect(capToolResult(parts, 1000).result).toBe(parts);
  });

  it('keeps the head and the tail of a 3 MB result within the limit, with a note stating the cut', () => {
    const text = `BEGIN${'0123456789'.repeat(300_000)}END`;
    const { result, cut } = capToolResult({ content: text, isError: true, details: { x: 1 } }, 65_536);
    const content = result.content as string;
    expect(bytes(content)).toBeLessThanOrEqual(65_536);
    expect(bytes(content)).toBeGreaterThan(65_000);
    expect(content.startsWith('BEGIN0123456789')).toBe(true);
    expect(content.endsWith('789END')).toBe(true);
    const [, cutBytes, original, limit] = NOTE.exec(content) ?? [];
    expect(Number(original)).toBe(bytes(text));
    expect(Number(limit)).toBe(65_536);
    expect(cut).toEqual({
      originalBytes: bytes(text),
      keptBytes: bytes(content),
      cutBytes: Number(cutBytes),
      limitBytes: 65_536,
    });
    expect(bytes(content.replace(NOTE, '')) + Number(cutBytes)).toBe(bytes(text));
    // Everything else about the result is kept.
    expect(result).toMatchObject({ isError: true, details: { x: 1 } });
  });

  it('cuts on code point boundaries: never a split surrogate pair or UTF-8 sequence', () => {
    const text = '😀'.repeat(40_000); // 4 bytes and 2 UTF-16 units each
    const content = capToolResult({ content: text }, 10_001).result.content as string;
    expect(hasLoneSurrogate(content)).toBe(false);
    expect(bytes(content)).toBeLessThanOrEqual(10_001);
    expect(content.replace(NOTE, '')).toMatch(/^(😀)+$/);
  });

  it('holds for any text and limit: within the limit, a prefix and a suffix of the original, no pair split', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\n'), maxLength: 3000, size: 'max' }),
        fc.integer({ min: 1024, max: 4096 }),
        (text, limit) => {
          const { result, cut } = capToolResult({ content: text }, limit);
          const content = result.content as string;
          if (bytes(text) <= limit) return content === text && cut === undefined;
          const match = NOTE.exec(content);
          if (match === null || cut === undefined) return false;
          const head = content.slice(0, match.index);
          const tail = content.slice(match.index + match[0].length);
          return (
            bytes(content) <= limit &&
            text.startsWith(head) &&
            text.endsWith(tail) &&
            !hasLoneSurrogate(content) &&
            cut.cutBytes === bytes(text) - bytes(head) - bytes(tail) &&
            cut.keptBytes === bytes(content)
          );
        },
      ),
    );
  });
});

describe('capToolResult: text and image parts', () => {
  const image = (name: string): ToolResultContentPart => ({
    type: 'image',
    data: name,
    mimeType: 'image/png',
  });

  it('cuts the text parts as one stream and keeps every image, in order', () => {
    const parts: ToolResultContentPart[] = [
      { type: 'text', text: `first ${'a'.repeat(50_000)}` },
      image('one'),
      { type: 'text', text: 'b'.repeat(50_000) },
      image('two'),
      { type: 'text', text: `${'c'.repeat(50_000)} last` },
    ];
    const { result, cut } = capToolResult({ content: parts }, 20_000);
    const content = result.content as ToolResultContentPart[];
    const text = textOf(content);
    expect(bytes(text)).toBeLessThanOrEqual(20_000);
    expect(text.startsWith('first aaa')).toBe(true);
    expect(text.endsWith('ccc last')).toBe(true);
    expect(text).toMatch(NOTE);
    expect(content.filter((part) => part.type === 'image').map((part) => part.data)).toEqual(['one', 'two']);
    // The text and each of the three text parts' 32-byte envelope.
    expect(cut?.originalBytes).toBe(150_011 + 3 * 32);
  });

  it('holds for any mix of parts: within the limit with envelopes, head and tail of the stream, images kept', () => {
    const part = fc.oneof(
      fc
        .string({ unit: fc.constantFrom('a', 'é', '😀'), maxLength: 1500, size: 'max' })
        .map((text): ToolResultContentPart => ({ type: 'text', text })),
      fc
        .string({ maxLength: 4 })
        .map((data): ToolResultContentPart => ({ type: 'image', data, mimeType: 'image/png' })),
    );
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 8, size: 'max' }),
        fc.integer({ min: 1024, max: 3000 }),
        (parts, limit) => {
          const original = textOf(parts);
          const { result, cut } = capToolResult({ content: parts }, limit);
          const content = result.content as ToolResultContentPart[];
          const images = (list: ToolResultContentPart[]) => list.filter((item) => item.type === 'image');
          // What the text parts cost the model: their text and a 32-byte envelope each.
          const received = bytes(original) + 32 * parts.filter((item) => item.type === 'text').length;
          if (received <= limit) return content === parts && cut === undefined;
          const text = textOf(content);
          const match = NOTE.exec(text);
          if (match === null || cut === undefined) return false;
          const textParts = content.filter((item) => item.type === 'text').length;
          return (
            bytes(text) + 32 * textParts <= limit &&
            original.startsWith(text.slice(0, match.index)) &&
            original.endsWith(text.slice(match.index + match[0].length)) &&
            !hasLoneSurrogate(text) &&
            JSON.stringify(images(content)) === JSON.stringify(images(parts))
          );
        },
      ),
    );
  });
});

describe('capToolResult: what the model receives beyond text', () => {
  // Each part as the Responses request carries it, the way the loop sends it.
  const requestBytes = (content: string | ToolResultContentPart[]) =>
    typeof content === 'string'
      ? bytes(content)
      : bytes(
          JSON.stringify(
            content.map((part) =>
              part.type === 'text'
                ? { type: 'input_text', text: part.text }
                : {
                    type: 'input_image',
                    image_url: `data:${part.mimeType};base64,${part.data}`,
                    detail: 'auto',
                  },
            ),
          ),
        );

  it('counts each text part with its envelope: a million one-byte parts reach the model as about the limit', () => {
    const parts = Array.from(
      { length: 1_000_000 },
      (): ToolResultContentPart => ({ type: 'text', text: 'x' }),
    );
    const { result, cut } = capToolResult({ content: parts }, 65_536);
    expect(cut).toMatchObject({ originalBytes: 33_000_000, limitBytes: 65_536 });
    expect(cut?.keptBytes).toBeLessThanOrEqual(65_536);
    // Within the limit plus the array's brackets.
    expect(requestBytes(result.content)).toBeLessThanOrEqual(65_536 + 2);
    expect((result.content as ToolResultContentPart[]).length).toBeLessThan(2100);
  });

  it('keeps images in order within maxImageBytes and names each one past it', () => {
    const image = (kib: number): ToolResultContentPart => ({
      type: 'image',
      data: 'A'.repeat(kib * 1024),
      mimeType: 'image/png',
    });
    const parts = [image(3000), { type: 'text' as const, text: 'between' }, image(2000), image(500)];
    const { result, cut } = capToolResult({ content: parts }, 65_536);
    const content = result.content as ToolResultContentPart[];
    // 3000 KiB and 500 KiB fit in 4 MiB together; the 2000 KiB image after the first does not.
    expect(content.map((part) => part.type)).toEqual(['image', 'text', 'text', 'image']);
    const line =
      '[image (image/png, 2048000 bytes of base64) omitted: the images of one tool result may send the model at most 4194304 bytes]';
    expect(content[2]).toEqual({ type: 'text', text: line });
    // The text the model gets: 'between' and the line, each with its envelope.
    const textBytes = 7 + 32 + bytes(line) + 32;
    expect(cut).toEqual({
      originalBytes: textBytes,
      keptBytes: textBytes,
      cutBytes: 0,
      limitBytes: 65_536,
      omittedImages: 1,
    });
    expect(requestBytes(result.content)).toBeLessThanOrEqual(4 * 1024 * 1024 + 65_536);
  });

  it('takes its own image limit, and an 8 MB image alone becomes a line', () => {
    const big: ToolResultContentPart = { type: 'image', data: 'A'.repeat(8_000_000), mimeType: 'image/png' };
    const { result, cut } = capToolResult({ content: [big] }, 65_536);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: '[image (image/png, 8000000 bytes of base64) omitted: the images of one tool result may send the model at most 4194304 bytes]',
      },
    ]);
    expect(cut?.omittedImages).toBe(1);
    const small: ToolResultContentPart = { type: 'image', data: 'A'.repeat(2000), mimeType: 'image/png' };
    expect(capToolResult({ content: [small] }, 65_536, { maxImageBytes: 1000 }).cut?.omittedImages).toBe(1);
    const kept = { content: [small] };
    expect(capToolResult(kept, 65_536, { maxImageBytes: 3000 }).result).toBe(kept);
  });
});

describe('the default limit', () => {
  it('is 64 KiB', () => {
    expect(DEFAULT_MAX_TOOL_RESULT_BYTES).toBe(65_536);
  });

  it('is 4 MiB for images', () => {
    expect(DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES).toBe(4 * 1024 * 1024);
  });
});
