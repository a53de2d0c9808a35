// One response of 128 parallel read_file calls of an 8 MiB file, through core's loop, the real SDK and
// the fake server: the loop runs a bounded number at once (core's maxParallelCalls), so the process
// grows by tens of megabytes, not a gigabyte, and its event loop keeps turning.

import { createResponsesModel, DEFAULT_MAX_PARALLEL_CALLS, runAgentLoop } from '@switchyard/core';
import { measureEventLoop, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useTempHome } from './__fixtures__/tool-harness';
import { createComputerTools } from './index';

const CALLS = 128;
const temp = useTempHome(() => {
  // 8 MiB of short lines: each read holds the whole file while it counts its lines.
  temp.write('big.log', 'a line of the log, forty bytes in all..\n'.repeat((8 * 1024 * 1024) / 40));
});

describe('many parallel calls of one response', () => {
  it(`reads one 8 MiB file ${CALLS} times at once growing the process by at most 100 MB, the loop never held 250 ms`, async () => {
    const server = await startFakeResponsesServer({
      script: [
        {
          functionCalls: Array.from({ length: CALLS }, (_, index) => ({
            name: 'read_file',
            arguments: { path: 'big.log', offset: 1 + index, limit: 1 },
          })),
        },
        { text: 'read' },
      ],
    });
    try {
      const model = createResponsesModel({
        client: new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 }),
        model: 'fake-model',
      });
      const tools = createComputerTools({ home: temp.home, sandbox: 'off' });
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const { value: result, maxBusyMs } = await measureEventLoop(async () => {
        const run = runAgentLoop({ model, tools, input: 'read it all' });
        return run.result();
      });
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(result.status).toBe('completed');
      const outputs = server.requests[1]?.functionCallOutputs ?? [];
      expect(outputs).toHaveLength(CALLS);
      expect(String(outputs[CALLS - 1]?.output)).toContain(`${CALLS}\ta line of the log`);
      console.log(
        `${CALLS} parallel reads, ${DEFAULT_MAX_PARALLEL_CALLS} at once: +${((peak - before) / 1e6).toFixed(0)} MB RSS, main thread held the loop at most ${maxBusyMs?.toFixed(0)} ms`,
      );
      expect(peak - before).toBeLessThan(100 * 1024 * 1024);
      if (maxBusyMs !== undefined) expect(maxBusyMs).toBeLessThan(250);
    } finally {
      await server.close();
    }
  });
});
