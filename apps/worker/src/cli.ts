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

const argv = process.argv.slice(2);
// `switchyard serve` (the daemon, src/daemon/) drains on SIGTERM or SIGINT itself.
const exitCode =
  argv[0] === 'serve'
    ? import('./daemon/serve-command').then(({ runServeCommand }) =>
        runServeCommand(argv.slice(1), process.env, (line) => process.stderr.write(`${line}\n`)),
      )
    : main(argv, {
        stdout: process.stdout,
        stderr: process.stderr,
        stdin: process.stdin,
        env: process.env,
        cwd: process.cwd(),
        signal: controller.signal,
      });

exitCode.then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchyard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
