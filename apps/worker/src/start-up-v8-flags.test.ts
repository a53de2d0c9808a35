import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVE_HEAP_GROWING_PERCENT, startUpV8Flags } from './start-up-v8-flags';

describe('startUpV8Flags', () => {
  it('turns off the optimising WebAssembly compiler for every command but serve', () => {
    for (const command of ['run', 'tools', 'turns', undefined]) {
      expect(startUpV8Flags(command, [])).toEqual(['--liftoff-only']);
    }
    expect(startUpV8Flags('serve', [])).not.toContain('--liftoff-only');
  });

  it('bounds the heap growth of serve, unless it was started with its own', () => {
    expect(startUpV8Flags('serve', ['--enable-source-maps'])).toEqual([
      `--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`,
    ]);
    expect(startUpV8Flags('serve', ['--heap-growing-percent=50'])).toEqual([]);
    expect(startUpV8Flags('serve', ['--heap_growing_percent=30'])).toEqual([]);
    // A flag whose name only starts the same is not the operator's choice of this one.
    expect(startUpV8Flags('serve', ['--heap-growing-percentage=50'])).toHaveLength(1);
  });

  it('names flags this Node.js knows (setFlagsFromString ignores one it does not)', () => {
    for (const command of ['serve', 'run']) {
      // On the command line an unknown V8 flag is a "bad option" and exit code 9.
      const result = spawnSync(process.execPath, [...startUpV8Flags(command, []), '-e', '0'], {
        encoding: 'utf8',
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    }
  });
});
