import { runServeCommand } from './daemon/serve-command';
import { runDemo } from './demo';

const USAGE = 'usage: switchyard demo | switchyard serve [options]';

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case 'demo':
      await runDemo((line) => process.stdout.write(`${line}\n`));
      return 0;
    case 'serve':
      return runServeCommand(argv.slice(1), process.env, (line) => process.stderr.write(`${line}\n`));
    default:
      process.stderr.write(
        `${command === undefined ? 'no command given' : `unknown command '${command}'`}\n${USAGE}\n`,
      );
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchyard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
