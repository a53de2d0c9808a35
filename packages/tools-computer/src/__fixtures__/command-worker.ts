// A worker process of its own for the sandbox's attack tests: it reads one JSON request per line on
// standard input, `{ "id", "command", "context": { home, sandbox, limits, ... }, "timeoutMs"? }`,
// runs the command with run_command and writes `{ "id", "content", "details" }` as one line. The
// test reads this process's RSS from /proc while a command runs, starts it as another user
// (setpriv), or hands it descriptors it then inherits, as a real worker would from its launcher.
// Usage: node --import tsx command-worker.ts
import { createInterface } from 'node:readline';
import type { ComputerToolsContext } from '../computer-tools-context';
import { createComputerTools } from '../create-computer-tools';

interface Request {
  id: number;
  command: string;
  context: ComputerToolsContext;
  timeoutMs?: number;
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = JSON.parse(line) as Request;
  try {
    const runCommand = createComputerTools(request.context)[0];
    if (runCommand === undefined) throw new Error('no run_command');
    const result = await runCommand.execute(
      {
        command: request.command,
        ...(request.timeoutMs === undefined ? {} : { timeout_ms: request.timeoutMs }),
      },
      {
        signal: new AbortController().signal,
        toolCallId: `fixture-${request.id}`,
        idempotencyKey: 'turn_test:1',
        reportProgress: () => undefined,
      },
    );
    process.stdout.write(
      `${JSON.stringify({ id: request.id, content: result.content, details: result.details })}\n`,
    );
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: request.id, error: String(error) })}\n`);
  }
}
