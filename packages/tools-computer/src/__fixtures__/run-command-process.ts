// A worker process of its own, started by a test with secrets in its environment (as a real
// worker has): it runs one command through run_command and prints the result as JSON, with the
// bubblewrap it parked for a next command (`parked`), and then exits on its own.
// Usage: node --import tsx run-command-process.ts '{"home": ..., "sandbox": ..., "command": ...}'
import { parkedSandboxes } from '../command/sandbox-process';
import { createComputerTools } from '../create-computer-tools';

const { home, sandbox, command } = JSON.parse(process.argv[2] ?? '{}') as {
  home: string;
  sandbox: 'required' | 'off';
  command: string;
};
const runCommand = createComputerTools({ home, sandbox })[0];
if (runCommand === undefined) throw new Error('no run_command');
const result = await runCommand.execute(
  { command },
  {
    signal: new AbortController().signal,
    toolCallId: 'fixture',
    idempotencyKey: 'turn_test:1',
    reportProgress: () => undefined,
  },
);
process.stdout.write(
  JSON.stringify({ content: result.content, details: result.details, parked: await parkedSandboxes() }),
);
