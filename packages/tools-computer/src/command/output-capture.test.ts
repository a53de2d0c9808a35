import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHome, resolveAgentHome } from '../paths/agent-home';
import { OutputCapture } from './output-capture';
import { openOutputSink } from './saved-outputs';

let base: string;
let home: AgentHome;

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'switchyard-capture-'));
  mkdirSync(path.join(base, 'home'));
  home = resolveAgentHome(path.join(base, 'home'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/**
 * Pushes `output` in pieces of `sizes` (cycled) from one reused buffer, as the output reader does:
 * the next piece overwrites it once `push` let go of it (at once, or when its promise settled).
 */
async function pushThroughOneBuffer(capture: OutputCapture, output: Buffer, sizes: number[]): Promise<void> {
  const buffer = Buffer.alloc(Math.max(...sizes));
  let offset = 0;
  for (let index = 0; offset < output.length; index += 1) {
    const size = Math.min(sizes[index % sizes.length] ?? 1, output.length - offset);
    output.copy(buffer, 0, offset, offset + size);
    const held = capture.push(buffer.subarray(0, size));
    if (held !== undefined) await held;
    // Whatever the capture kept of these bytes must have been copied or written by now.
    buffer.fill(0x23);
    offset += size;
  }
}

describe('output capture', () => {
  it('keeps the exact head and tail and saves the exact first bytes, whatever the pieces, from one reused buffer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 3_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 12_000 }),
        fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 8 }),
        async (maxBytes, maxSavedBytes, length, sizes) => {
          // Letters only: no line break to move the cut to, no character to keep whole.
          const output = Buffer.alloc(length);
          for (let index = 0; index < length; index += 1)
            output[index] = 0x61 + ((index * 7 + (index >> 5)) % 26);
          const capture = new OutputCapture({
            maxBytes,
            maxSavedBytes,
            openSink: openOutputSink(home, randomUUID(), 5),
          });
          await pushThroughOneBuffer(capture, output, sizes);
          const captured = await capture.finish();
          expect(captured.totalBytes).toBe(length);
          if (length <= maxBytes) {
            expect(captured).toMatchObject({ truncated: false, text: output.toString('latin1') });
            return;
          }
          const head = output.subarray(0, Math.ceil(maxBytes / 2)).toString('latin1');
          const tail = output.subarray(length - Math.floor(maxBytes / 2)).toString('latin1');
          expect(captured.truncated).toBe(true);
          expect(
            captured.text.startsWith(
              `${head}\n[... ${(length - head.length - tail.length).toLocaleString('en-US')} bytes cut`,
            ),
          ).toBe(true);
          expect(captured.text.endsWith(` ...]\n${tail}`)).toBe(true);
          if (maxSavedBytes === 0) {
            expect(captured.savedPath).toBeUndefined();
            return;
          }
          const savedBytes = Math.min(length, maxSavedBytes);
          expect(captured.savedBytes).toBe(savedBytes);
          const saved = readFileSync(path.join(home.root, captured.savedPath ?? ''));
          expect(saved.equals(output.subarray(0, savedBytes))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('holds the caller only for bytes being written: none below the cap, none past the save limit', async () => {
    const capture = new OutputCapture({
      maxBytes: 10,
      maxSavedBytes: 30,
      openSink: openOutputSink(home, randomUUID(), 5),
    });
    const piece = Buffer.from('abcdefghij');
    expect(capture.push(piece)).toBeUndefined();
    // Crossing the cap, the bytes so far are copied into one buffer of the capture's own.
    expect(capture.push(piece)).toBeUndefined();
    const writing = capture.push(piece);
    expect(writing).toBeInstanceOf(Promise);
    await writing;
    // The save limit (30 bytes) is reached: nothing more is written, and nothing held.
    expect(capture.push(piece)).toBeUndefined();
    const captured = await capture.finish();
    expect(captured).toMatchObject({ totalBytes: 40, truncated: true, savedBytes: 30 });
    expect(captured.text).toMatch(
      /^abcde\n\[\.\.\. 30 bytes cut .*the first 30 bytes were saved to .* \.\.\.\]\nfghij$/,
    );
  });
});
