import { setFlagsFromString } from 'node:v8';
import { main } from './cli-main';
import { quietOnClosedPipe } from './progress/closed-pipe';

// Every command but the daemon lives a second or a few: V8's optimising compiler for WebAssembly
// (the embedded database) spends more CPU on background compiles than the optimised code saves in
// that time. Without it a read-only view takes 1.0 s instead of 1.45 s (1.15 s of CPU instead of
// 2.1 s). `serve` runs for hours and keeps it. (Set before any database opens: V8 reads it when it
// compiles a WebAssembly module.)
if (process.argv[2] !== 'serve') setFlagsFromString('--liftoff-only');

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
