import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openForSuite } from './__fixtures__/open-for-suite';
import { openCliBed, runCli } from './__fixtures__/run-cli';

const bed = openForSuite(() => openCliBed('switchyard-turn-limit-'));

const collectGarbageOften = fileURLToPath(
  new URL('./__fixtures__/collect-garbage-often.mjs', import.meta.url),
);

describe('switchyard run: the turn limit', () => {
  it('ends a turn at limits.turnTimeoutMs while the process collects garbage every few milliseconds', async () => {
    const { root, fake } = bed();
    // Node 20 collects an AbortSignal.timeout that only an AbortSignal.any refers to before it fires:
    // then the turn waits for the model's answer, 20 s later, and completes.
    const cwd = await mkdtemp(path.join(root, 'w-'));
    await writeFile(
      path.join(cwd, 'switchyard.config.json'),
      JSON.stringify({ categories: { computer: { homeRoot: 'homes' } }, limits: { turnTimeoutMs: 1_500 } }),
    );
    fake.reset([{ text: 'an answer that comes too late', delayMs: 20_000 }]);
    const run = await runCli(['run', '--json', 'Answer slowly'], {
      cwd,
      env: { OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'scripted' },
      nodeArguments: ['--expose-gc', '--import', collectGarbageOften],
    });
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; status?: string; error?: { message: string } });
    const end = events.at(-1);
    expect(end).toMatchObject({
      type: 'turn-end',
      status: 'aborted',
      error: { message: 'the turn ran longer than its limit of 1500 ms (limits.turnTimeoutMs)' },
    });
    expect(run.code).toBe(1);
    const collections = Number(/forced garbage collections: (\d+)/.exec(run.stderr)?.[1]);
    expect(collections).toBeGreaterThan(0);
    expect(fake.errors).toEqual([]);
  });
});
