import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the console, as the daemon answers it. */
export interface ConsoleFile {
  /** The file's bytes, read once at start-up. */
  bytes: Uint8Array;
  /** Its `content-type`. */
  contentType: string;
  /** A hashed asset (`/assets/...`): its name changes with its content, so it may be cached for good. */
  immutable: boolean;
}

/**
 * What the daemon answers at `/`: the console's files by request path, the folder it looked in and
 * found no console (not built), or nothing (turned off with `serve.console: false`).
 */
export type ConsoleSite =
  | {
      /** The console was read. */
      status: 'served';
      /** Request path (`/`, `/index.html`, `/assets/index-1a2b3c.js`) -> file. Only these are served. */
      files: ReadonlyMap<string, ConsoleFile>;
    }
  | {
      /** The folder holds no built console. */
      status: 'not-built';
      /** The folder looked in. */
      directory: string;
    }
  | {
      /** `serve.console: false`. */
      status: 'disabled';
    };

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name the console may have: path segments of letters, digits, `.`, `_` and `-`. */
const SERVABLE_NAME = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Where the console's files are: `dist/console` beside the bundled CLI (`dist/cli.js`); when this
 * module runs from source (the tests), the worker package's `dist/console`.
 */
export function defaultConsoleDirectory(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(here) === 'daemon' && path.basename(path.dirname(here)) === 'src'
    ? path.resolve(here, '../../dist/console')
    : path.join(here, 'console');
}

/** Every regular file under `directory`, as paths relative to it with `/` separators. */
async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    );
}

/**
 * Reads the built console in `directory` (default `defaultConsoleDirectory()`) into memory, once:
 * the daemon then answers only those request paths, so no file-system path is ever built from a
 * request and nothing outside the console can be reached (`..`, encoded or not, names no entry).
 *
 * Contract: returns `not-built` when `directory` has no `index.html`; `/` and `/index.html` are the
 * page, every other file is `/<its path>` (only names of letters, digits, `.`, `_` and `-` that do
 * not start with `.`: anything else is left out); files under `assets/` are `immutable` (Vite hashes their
 * names). Throws only for a read error other than a missing folder or page.
 */
export async function readConsoleFiles(directory: string = defaultConsoleDirectory()): Promise<ConsoleSite> {
  let names: string[];
  try {
    names = await listFiles(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'not-built', directory };
    throw error;
  }
  if (!names.includes('index.html')) return { status: 'not-built', directory };
  const files = new Map<string, ConsoleFile>();
  // Vite's names are letters, digits, `.`, `_` and `-`: anything else (which a router could read as a
  // pattern) is not served.
  for (const name of names.filter((entry) => SERVABLE_NAME.test(entry)).toSorted()) {
    const bytes = new Uint8Array(await readFile(path.join(directory, name)));
    const file: ConsoleFile = {
      bytes,
      contentType: CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream',
      immutable: name.startsWith('assets/'),
    };
    files.set(`/${name}`, file);
    if (name === 'index.html') files.set('/', file);
  }
  return { status: 'served', files };
}
