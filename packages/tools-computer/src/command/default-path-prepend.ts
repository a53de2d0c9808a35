import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: readonly string[] | undefined;

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Finds `node_modules/mcporter` the way Node resolves it from `start`, and a folder with its binary. */
function findMcporterBinDirectory(start: string): string | undefined {
  let directory = start;
  for (;;) {
    const packageDirectory = path.join(directory, 'node_modules', 'mcporter');
    if (existsSync(path.join(packageDirectory, 'package.json'))) {
      const binDirectory = path.join(directory, 'node_modules', '.bin');
      if (existsSync(path.join(binDirectory, 'mcporter'))) return binDirectory;
      // Layouts without a .bin beside the dependency (pnpm's store): a private shim folder.
      const manifest = JSON.parse(readFileSync(path.join(packageDirectory, 'package.json'), 'utf8')) as {
        bin?: string | Record<string, string>;
      };
      const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.mcporter;
      if (bin === undefined) return undefined;
      const shimDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-bin-'));
      const shim = path.join(shimDirectory, 'mcporter');
      writeFileSync(
        shim,
        `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(path.join(packageDirectory, bin))} "$@"\n`,
      );
      chmodSync(shim, 0o755);
      return shimDirectory;
    }
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/**
 * The default directories put first on a command's `PATH`: the folder of this package's `mcporter`
 * binary, so `mcporter call ...` needs no download.
 */
export function defaultPathPrepend(): readonly string[] {
  if (cached === undefined) {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const mcporter = findMcporterBinDirectory(here);
    cached = mcporter === undefined ? [] : [mcporter];
  }
  return cached;
}
