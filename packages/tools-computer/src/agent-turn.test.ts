import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type AgentEvent, createResponsesModel, runAgentLoop } from '@switchyard/core';
import { type FakeRequest, startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useTempHome } from './__fixtures__/tool-harness';
import { createComputerTools } from './index';

const temp = useTempHome(() => {
  temp.write('src/sum.js', 'export function sum(a, b) {\n  return a - b;\n}\n');
  temp.write(
    'test.sh',
    [
      '#!/usr/bin/env bash',
      'set -e',
      'result=$(node --input-type=module -e "import { sum } from \'./src/sum.js\'; console.log(sum(2, 3));")',
      'if [ "$result" = 5 ]; then echo "PASS sum(2, 3) = 5"; else echo "FAIL sum(2, 3) = $result"; exit 1; fi',
      '',
    ].join('\n'),
    0o755,
  );
});

function outputOf(request: FakeRequest, index: number): string {
  const output = request.functionCallOutputs[index]?.output;
  return typeof output === 'string' ? output : JSON.stringify(output);
}

describe('a turn through the fake Responses server', () => {
  it('reads, edits and runs a test script in a temp home', async () => {
    const server = await startFakeResponsesServer({
      script: [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'src/sum.js', offset: null, limit: null } },
          ],
        },
        (request) => {
          expect(outputOf(request, 0)).toContain('     2\t  return a - b;');
          return {
            functionCalls: [
              {
                name: 'edit_file',
                arguments: {
                  path: 'src/sum.js',
                  old_string: '  return a - b;',
                  new_string: '  return a + b;',
                  replace_all: null,
                },
              },
            ],
          };
        },
        (request) => {
          expect(outputOf(request, 1)).toContain('Edited src/sum.js: 1 replacement');
          return {
            functionCalls: [{ name: 'run_command', arguments: { command: './test.sh', timeout_ms: null } }],
          };
        },
        (request) => {
          expect(outputOf(request, 2)).toContain('PASS sum(2, 3) = 5');
          expect(outputOf(request, 2)).toContain('Exit code 0');
          return { text: 'Fixed sum: the test passes.' };
        },
      ],
    });
    try {
      const model = createResponsesModel({
        client: new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 }),
        model: 'test-model',
      });
      const run = runAgentLoop({
        model,
        tools: createComputerTools({ home: temp.home }),
        input: 'The test in test.sh fails; fix src/sum.js.',
      });
      const labels: string[] = [];
      for await (const event of run as AsyncIterable<AgentEvent>) {
        if (event.type === 'tool-call-start' || event.type === 'tool-call-end') labels.push(event.activity);
      }
      const result = await run.result();
      expect(result.status).toBe('completed');
      expect(result.output).toContain('the test passes');
      expect(readFileSync(path.join(temp.home, 'src/sum.js'), 'utf8')).toContain('return a + b;');
      expect(labels[0]).toBe('Reading src/sum.js');
      expect(labels[1]).toBe('Read 3 lines of src/sum.js');
      expect(labels[2]).toBe('Editing src/sum.js');
      expect(labels[3]).toBe('Edited src/sum.js (1 replacement)');
      expect(labels[4]).toBe('Running `./test.sh`');
      expect(labels[5]).toMatch(/^Command exited 0 after \d+\.\d s$/);
      expect(server.requests).toHaveLength(4);
      expect(server.requests[0]?.toolNames).toEqual([
        'run_command',
        'read_file',
        'list_files',
        'search_files',
        'write_file',
        'edit_file',
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
