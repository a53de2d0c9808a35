// `pnpm switchyard <command>` from anywhere in the repository: the worker's built CLI, run in the
// folder pnpm was called from (pnpm runs scripts in the repository root and passes the caller's
// folder as INIT_CWD), so `switchyard.config.json` and `.switchyard/` are that folder's.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../apps/worker/dist/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write(
    'switchyard: the worker is not built yet; run `bash scripts/demo.sh` (or `pnpm build`) first\n',
  );
  process.exit(2);
}
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
await import(cli);
