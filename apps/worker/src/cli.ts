import { main } from './cli-main';

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  // The first Ctrl-C aborts the turn (every call gets an output and the summary is printed);
  // a second one leaves at once.
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort(new Error('Interrupted (Ctrl-C)'));
});

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchyard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
