import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface BundledMcporter {
  /** The folder with its binary, put first on a command's PATH. */
  binDirectory: string;
  /** The folders its binary reads when it runs: the dependency's link and its real install. */
  installDirectories: string[];
}

let cached: { found: BundledMcporter | undefined } | undefined;

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The outermost `node_modules` on a package's real path: with pnpm, the store folder that holds the
 * package and its dependencies (`<root>/node_modules/.pnpm/mcporter@x/node_modules/mcporter`).
 */
function installRoot(packageDirectory: string): string {
  const real = realpathSync(packageDirectory);
  const parts = real.split(path.sep);
  const index = parts.indexOf('node_modules');
  return index === -1 ? path.dirname(real) : parts.slice(0, index + 1).join(path.sep) || path.sep;
}

/** Finds `node_modules/mcporter` the way Node resolves it from `start`, and a folder with its binary. */
function findMcporter(start: string): BundledMcporter | undefined {
  let directory = start;
  for (;;) {
    const packageDirectory = path.join(directory, 'node_modules', 'mcporter');
    if (existsSync(path.join(packageDirectory, 'package.json'))) {
      const installDirectories = [path.join(directory, 'node_modules'), installRoot(packageDirectory)];
      const binDirectory = path.join(directory, 'node_modules', '.bin');
      if (existsSync(path.join(binDirectory, 'mcporter'))) return { binDirectory, installDirectories };
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
      return { binDirectory: shimDirectory, installDirectories };
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
  const found = bundledMcporter();
  return found === undefined ? [] : [found.binDirectory];
}

/**
 * The folders the bundled `mcporter` runs from: a sandboxed command is shown them read-only (the
 * sandbox shows an allowlist of the host, and these are on the command's `PATH`).
 */
export function bundledToolDirectories(): readonly string[] {
  return bundledMcporter()?.installDirectories ?? [];
}

function bundledMcporter(): BundledMcporter | undefined {
  if (cached === undefined) {
    cached = { found: findMcporter(path.dirname(fileURLToPath(import.meta.url))) };
  }
  return cached.found;
}
