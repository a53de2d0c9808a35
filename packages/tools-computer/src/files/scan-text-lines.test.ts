import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempHome } from '../__fixtures__/tool-harness';
import { resolveAgentHome } from '../paths/agent-home';
import { scanTextLines } from './scan-text-lines';

const temp = useTempHome();

/** Scans `content` (written as a file) from line `from`, keeping `keepBytes` of each line. */
async function scan(
  content: string | Buffer,
  from = 1,
  keepBytes = 1_000_000,
  take = Number.POSITIVE_INFINITY,
) {
  writeFileSync(path.join(temp.home, 'f.txt'), content);
  const lines: Array<{ text: string; cut: boolean }> = [];
  const scanned = await scanTextLines(resolveAgentHome(temp.home), 'f.txt', 64 * 1024 * 1024, {
    from,
    keepBytes,
    onLine: (bytes, cut) => {
      lines.push({ text: Buffer.from(bytes).toString('utf8'), cut });
      return lines.length < take;
    },
  });
  return { totalLines: scanned.totalLines, lines };
}

describe('scanning a text file by lines', () => {
  it('counts lines as an editor does: a last line needs no newline, a byte order mark is not content', async () => {
    expect((await scan('')).totalLines).toBe(0);
    expect(await scan('a')).toEqual({ totalLines: 1, lines: [{ text: 'a', cut: false }] });
    expect((await scan('a\n')).totalLines).toBe(1);
    expect((await scan('\n\n')).lines.map((line) => line.text)).toEqual(['', '']);
    expect((await scan('\uFEFFfirst\nsecond')).lines.map((line) => line.text)).toEqual(['first', 'second']);
  });

  it('hands over the lines from `from` on, each cut to keepBytes, and counts on after it is told to stop', async () => {
    const text = Array.from({ length: 10 }, (_, index) => `line ${index + 1} ${'x'.repeat(index)}`).join(
      '\n',
    );
    const { totalLines, lines } = await scan(text, 4, 8, 3);
    expect(totalLines).toBe(10);
    expect(lines).toEqual([
      { text: 'line 4 x', cut: true },
      { text: 'line 5 x', cut: true },
      { text: 'line 6 x', cut: true },
    ]);
  });

  it('reads characters and lines cut across its 64 KiB pieces whole, in files larger than a piece', async () => {
    // 'é' is 2 bytes and '😀' 4: some fall across a piece's end.
    const lines = Array.from({ length: 40_000 }, (_, index) => `${index} é😀 ${'ab'.repeat(index % 50)}`);
    const { totalLines, lines: seen } = await scan(`${lines.join('\n')}\n`);
    expect(totalLines).toBe(40_000);
    expect(seen.map((line) => line.text)).toEqual(lines);
  });

  it('refuses binary files and invalid UTF-8, also where the fault lies far from the start', async () => {
    await expect(scan(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2]))).rejects.toThrow(
      /is a binary file \(a PNG image/,
    );
    await expect(
      scan(Buffer.concat([Buffer.from('text'), Buffer.alloc(1), Buffer.from('more')])),
    ).rejects.toThrow(/binary data/);
    const bad = Buffer.concat([
      Buffer.from('a'.repeat(200_000)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('b'),
    ]);
    await expect(scan(bad)).rejects.toThrow(/not valid UTF-8 text/);
    // A character cut off by the end of the file.
    await expect(scan(Buffer.concat([Buffer.from('ok '), Buffer.from([0xf0, 0x9f, 0x98])]))).rejects.toThrow(
      /not valid UTF-8 text/,
    );
  });
});
