import { collectToolSchemas, defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';

const notes = new Map([['todo.md', '- ship the foundation\n- write the ladder\n']]);

const readNote = defineWorkerTool({
  name: 'read_note',
  description: 'Read a note by name.',
  schema: z.object({
    name: z.string().describe('The note file name'),
    maxLines: z.number().int().optional(),
  }),
  executionMode: 'parallel',
  isReadOnly: true,
  describeActivity: ({ name }) => `Reading ${name}`,
  describeCompletedActivity: ({ name }, result) =>
    `Read ${String(result.content).split('\n').length - 1} lines of ${name}`,
  execute: ({ name, maxLines }) => {
    const text = notes.get(name);
    if (text === undefined) return { content: `No note named ${name}.`, isError: true };
    return { content: maxLines === undefined ? text : `${text.split('\n').slice(0, maxLines).join('\n')}\n` };
  },
});

const addNumbers = defineWorkerTool({
  name: 'add',
  description: 'Add two numbers.',
  schema: z.object({ a: z.number(), b: z.number() }),
  namespace: 'calc',
  namespaceDescription: 'A tiny calculator.',
  deferLoading: true,
  executionMode: 'parallel',
  isReadOnly: true,
  describeActivity: ({ a, b }) => `Adding ${a} and ${b}`,
  execute: ({ a, b }) => ({ content: String(a + b) }),
});

/**
 * The offline demo: defines two tools, shows the manifest a turn would send, and runs one call.
 * It talks to no model.
 */
export async function runDemo(print: (line: string) => void): Promise<void> {
  print('Switchyard demo (offline: no model is called)');
  const manifest = collectToolSchemas([readNote, addNumbers], { toolSearch: 'native' });
  print('');
  print('Tools the next request would send:');
  for (const entry of manifest.entries) {
    const mode = entry.strict ? 'strict' : `non-strict (${entry.fallbackReason ?? 'opted out'})`;
    print(
      `  ${entry.key.padEnd(12)} ${mode.padEnd(10)} ${entry.deferred ? 'deferred' : 'eager   '} ${entry.bytes} B`,
    );
  }
  print(`  total ${manifest.bytes} B in ${manifest.tools.length} Responses tools`);
  print('');
  const params = { name: 'todo.md' };
  print(`- ${readNote.describeActivity(params)}`);
  const result = await readNote.execute(params, {
    signal: AbortSignal.timeout(5_000),
    toolCallId: 'call_demo',
    reportProgress: () => {},
  });
  print(`✓ ${readNote.describeCompletedActivity?.(params, result) ?? readNote.describeActivity(params)}`);
  print(String(result.content).trimEnd());
}
