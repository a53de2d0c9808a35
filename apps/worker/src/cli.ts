import { setFlagsFromString } from 'node:v8';
import { main } from './cli-main';
import { quietOnClosedPipe } from './progress/closed-pipe';
import { startUpV8Flags } from './start-up-v8-flags';

// Set before any database opens: see `startUpV8Flags`.
for (const flag of startUpV8Flags(process.argv[2], process.execArgv)) setFlagsFromString(flag);

const controller = new AbortController();
let interrupted = false;
let requestStop: (signal: NodeJS.Signals) => void = () => {};
const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
  requestStop = resolve;
});
process.on('SIGINT', () => {
  // The first Ctrl-C aborts the turn (every call gets an output and the summary is printed) or
  // drains `serve`; a second one leaves at once.
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort(new Error('Interrupted (Ctrl-C)'));
  requestStop('SIGINT');
});
// Only the daemon drains on SIGTERM; any other command ends at once, as a process does.
if (process.argv[2] === 'serve') process.on('SIGTERM', () => requestStop('SIGTERM'));

main(process.argv.slice(2), {
  // `switchyard tools | head -1`: a reader that left is not an error. Writes after that are
  // dropped, the command finishes and cleans up, and the exit code stays the command's.
  stdout: quietOnClosedPipe(process.stdout),
  stderr: quietOnClosedPipe(process.stderr),
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  stopRequested,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchyard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
