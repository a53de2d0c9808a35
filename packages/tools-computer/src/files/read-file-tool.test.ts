import { symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callTool, toolOnHome, useTempHome } from '../__fixtures__/tool-harness';
import { createReadFileTool, numberLine, splitLines } from './read-file-tool';

const temp = useTempHome(() => {
  temp.write(
    'src/index.ts',
    `${Array.from({ length: 120 }, (_, index) => `line ${index + 1}`).join('\n')}\n`,
  );
});
const tool = toolOnHome(temp, createReadFileTool);

describe('reading', () => {
  it('reads numbered lines and labels the call', async () => {
    const readFile = tool();
    expect(readFile.describeActivity({ path: 'src/index.ts' })).toBe('Reading src/index.ts');
    const { text, label, result } = await callTool(readFile, { path: 'src/index.ts' });
    expect(text.split('\n')[0]).toBe('     1\tline 1');
    expect(text.split('\n')).toHaveLength(120);
    expect(label).toBe('Read 120 lines of src/index.ts');
    expect(result.isError).toBeUndefined();
  });

  it('pages with offset and limit and says how to continue', async () => {
    const { text, label } = await callTool(tool(), { path: 'src/index.ts', offset: 10, limit: 5 });
    expect(text).toBe(
      `${['    10\tline 10', '    11\tline 11', '    12\tline 12', '    13\tline 13', '    14\tline 14'].join(
        '\n',
      )}\n[Lines 10-14 of 120 shown; continue with offset 15.]`,
    );
    expect(label).toBe('Read 5 lines of src/index.ts');
  });

  it('caps the text returned and long lines', async () => {
    temp.write('long.txt', `${'x'.repeat(50)}\n`.repeat(100));
    const { text, result } = await callTool(tool({ maxReadBytes: 600, maxLineLength: 20 }), {
      path: 'long.txt',
    });
    expect(text).toContain('[line cut at 20 characters]');
    expect(text).toMatch(/continue with offset \d+\.\]$/);
    expect(result.details).toMatchObject({ truncated: true });
  });

  it('refuses an offset past the end', async () => {
    const { result, text } = await callTool(tool(), { path: 'src/index.ts', offset: 500 });
    expect(result.isError).toBe(true);
    expect(text).toBe('offset 500 is past the end of src/index.ts, which has 120 lines.');
  });
});

describe('reading lines from the bytes', () => {
  // What read_file returned when it decoded and split the whole file: the lines it shows now are
  // located in the bytes and decoded one by one, and must not differ.
  function reference(
    text: string,
    offset: number,
    limit: number,
    maxLineLength: number,
    maxReadBytes: number,
  ) {
    const lines = splitLines(text.startsWith('\ufeff') ? text.slice(1) : text);
    if (lines.length === 0) return 'p.txt is empty.';
    const out: string[] = [];
    let bytes = 0;
    let end = offset - 1;
    for (let index = offset - 1; index < lines.length && out.length < limit; index += 1) {
      const formatted = numberLine(index + 1, lines[index] ?? '', maxLineLength);
      bytes += Buffer.byteLength(formatted) + 1;
      if (bytes > maxReadBytes && out.length > 0) break;
      out.push(formatted);
      end = index + 1;
    }
    if (end < lines.length)
      out.push(`[Lines ${offset}-${end} of ${lines.length} shown; continue with offset ${end + 1}.]`);
    return out.join('\n');
  }

  it('shows what decoding the whole file showed, for any text, offset and limits', async () => {
    const unit = fc.constantFrom('a', 'é', '😀', '\n', '\n', '\r', '\t', ' ', '\ufeff');
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit, minLength: 1, maxLength: 80 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 20, max: 200 }),
        async (body, bom, offset, limit, maxLineLength, maxReadBytes) => {
          const text = bom ? `\ufeff${body}` : body;
          const lines = splitLines(text.startsWith('\ufeff') ? text.slice(1) : text).length;
          fc.pre(offset <= Math.max(1, lines));
          temp.write('p.txt', text);
          const { text: shown } = await callTool(tool({ maxLineLength, maxReadBytes }), {
            path: 'p.txt',
            offset,
            limit,
          });
          expect(shown).toBe(reference(text, offset, limit, maxLineLength, maxReadBytes));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('refusals', () => {
  it('refuses binary files with a clear message', async () => {
    temp.write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    temp.write('data.bin', Buffer.from([1, 2, 0, 3, 4]));
    const png = await callTool(tool(), { path: 'logo.png' });
    expect(png.result.isError).toBe(true);
    expect(png.text).toMatch(/^logo\.png is a binary file \(a PNG image, 12 bytes\)/);
    const bin = await callTool(tool(), { path: 'data.bin' });
    expect(bin.text).toContain('is a binary file (binary data');
  });

  it('validates UTF-8 across its 1 MiB stretches: a character on the boundary is fine, a bad byte later is not', async () => {
    // Three-byte characters put one across the 1 MiB mark; a lone continuation byte comes after it.
    const text = `${'€'.repeat(400_000)}\n`;
    temp.write('euro.txt', text);
    const good = await callTool(tool(), { path: 'euro.txt', limit: 1 });
    expect(good.result.isError).toBeUndefined();
    expect(good.result.details).toMatchObject({ totalLines: 1 });
    temp.write('bad.txt', Buffer.concat([Buffer.from(text), Buffer.from([0x80]), Buffer.from('tail\n')]));
    const bad = await callTool(tool(), { path: 'bad.txt' });
    expect(bad.text).toMatch(/^bad\.txt is a binary file \(not valid UTF-8 text, 1,200,007 bytes\)/);
  });

  it('refuses files above the size cap', async () => {
    temp.write('big.txt', 'a'.repeat(2000));
    const { result, text } = await callTool(tool({ maxFileBytes: 1000 }), { path: 'big.txt' });
    expect(result.isError).toBe(true);
    expect(text).toContain('more than the 1,000-byte limit');
  });

  it('refuses every escape: .., absolute outside, symlink to /etc, symlinked parent', async () => {
    temp.write('../outside/secret.txt', 'secret');
    symlinkSync('/etc', path.join(temp.home, 'etc'));
    symlinkSync(temp.outside, path.join(temp.home, 'out'));
    const attempts = [
      '../outside/secret.txt',
      path.join(temp.outside, 'secret.txt'),
      '/etc/hostname',
      'etc/hostname',
      'out/secret.txt',
    ];
    for (const attempt of attempts) {
      const { result, text } = await callTool(tool(), { path: attempt });
      expect(result.isError, attempt).toBe(true);
      expect(text, attempt).toMatch(/outside the agent home/);
      expect(text).not.toContain('secret\n');
    }
  });
});
