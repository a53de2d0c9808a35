import { describe, expect, it } from 'vitest';
import { BoundedLineReader, OVERSIZED_LINE_ENDS, type OversizedLine } from './bounded-line-reader';

function reader(maxLineBytes: number, runawayBytes = maxLineBytes * 4) {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const runaways: number[] = [];
  const lineReader = new BoundedLineReader(maxLineBytes, runawayBytes, {
    line: (text) => lines.push(text),
    oversized: (line) => oversized.push(line),
    runaway: (bytes) => runaways.push(bytes),
  });
  return { lineReader, lines, oversized, runaways };
}

describe('splitting a stream into bounded lines', () => {
  it('gives whole lines whatever the chunking, without their line breaks', () => {
    const { lineReader, lines } = reader(64);
    for (const chunk of ['{"a"', ':1}\n{"b":2}\r\n', '{"c"', '', ':3}\n'])
      lineReader.push(Buffer.from(chunk));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a line of exactly the limit and drops one byte more, keeping its two ends', () => {
    const { lineReader, lines, oversized } = reader(10);
    lineReader.push(Buffer.from('0123456789\n'));
    lineReader.push(Buffer.from('0123456789A\nnext\n'));
    expect(lines).toEqual(['0123456789', 'next']);
    expect(oversized).toEqual([{ bytes: 11, head: '0123456789A', tail: '0123456789A' }]);
  });

  it('holds no more than the ends of a long line dropped across many chunks', () => {
    const { lineReader, lines, oversized } = reader(1024, 10 * 1024 * 1024);
    lineReader.push(Buffer.from('{"id":7,"result":"'));
    for (let index = 0; index < 100; index += 1) lineReader.push(Buffer.alloc(64 * 1024, 'x'));
    lineReader.push(Buffer.from('"}\n{"ok":true}\n'));
    expect(lines).toEqual(['{"ok":true}']);
    const [line] = oversized;
    expect(line?.bytes).toBe(18 + 100 * 64 * 1024 + 2);
    expect(line?.head).toBe(`{"id":7,"result":"${'x'.repeat(OVERSIZED_LINE_ENDS - 18)}`);
    expect(line?.tail).toBe(`${'x'.repeat(OVERSIZED_LINE_ENDS - 2)}"}`);
  });

  it('reports a line without end once, past the runaway limit, and takes nothing more', () => {
    const { lineReader, lines, oversized, runaways } = reader(1024, 8192);
    for (let index = 0; index < 20; index += 1) lineReader.push(Buffer.alloc(1000, 'x'));
    lineReader.push(Buffer.from('\n{"late":true}\n'));
    expect(runaways).toEqual([9000]);
    expect(lines).toEqual([]);
    expect(oversized).toEqual([]);
  });
});
