// Copies the built console (`@switchyard/console`'s `dist`) into `dist/console`, beside the bundled
// CLI, so `switchyard serve` answers it at `/` with no extra step. The console is found through the
// installed package, not a relative path, so this works wherever pnpm put it. turbo builds the
// console first (the worker depends on it) and its build hash is part of the worker's.
import { cp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const consoleRoot = path.dirname(require.resolve('@switchyard/console/package.json'));
const source = path.join(consoleRoot, 'dist');
const target = fileURLToPath(new URL('../dist/console', import.meta.url));

try {
  await stat(path.join(source, 'index.html'));
} catch {
  console.error(
    `copy-console: ${path.join(source, 'index.html')} is missing: build the console first (pnpm exec turbo run build --filter=@switchyard/worker...)`,
  );
  process.exit(1);
}
await rm(target, { recursive: true, force: true });
await cp(source, target, { recursive: true });
console.log(`copy-console: ${source} -> ${target}`);
