import type { Stats } from 'node:fs';
import { type FileHandle, lstat } from 'node:fs/promises';
import type { WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { relativeToHome, resolveExistingInHome } from '../paths/agent-home';
import { describeFileKind, isSpecialFile, openRegularFileAt } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import type { ComputerSettings } from '../resolve-computer-settings';
import { defineFileTool } from './define-file-tool';
import { compileGlob } from './glob';
import type { CompiledGlob } from './glob/compiled-glob';
import { GlobWorkLimitError } from './glob/glob-work-limit-error';
import { type FileMatches, LineMatcher, MatchTimeoutError } from './line-matcher';
import { mentionedSkippedDirectories } from './list-files-tool';
import { plural } from './plural';
import { SIGNATURES } from './read-text-file';
import { TimeSlice } from './time-slice';
import { walkDirectory } from './walk-directory';

const schema = z.object({
  pattern: z
    .string()
    .describe('JavaScript regular expression matched against each line; start with (?i) to ignore case.'),
  path: z
    .string()
    .optional()
    .describe('File or folder to search, relative to your home (default: the home).'),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files matching this glob, e.g. "*.ts" (any folder), "*.{ts,tsx}" or "src/**/*.md".',
    ),
});

/** Parameters of `search_files`. */
export type SearchFilesParams = z.output<typeof schema>;

/** What `search_files` records about a call. */
export interface SearchFilesDetails {
  /** Matching lines returned. */
  matches: number;
  /** Files with at least one match. */
  files: number;
  /** Files searched. */
  searchedFiles: number;
  /** Files skipped as binary or too large. */
  skippedFiles: number;
  /** Named pipes, sockets and devices skipped (never opened: opening a FIFO can block). */
  skippedSpecialFiles: number;
  /** The match cap or the walk limit was reached. */
  truncated: boolean;
}

const BATCH_BYTES = 512 * 1024;
// Each file of a batch stays open until the matcher thread has read it.
const BATCH_FILES = 64;

type SearchLimits = ComputerSettings['limits'];

/** The checked options of one search: the compiled pattern, the glob, and where to start. */
interface SearchOptions {
  source: string;
  flags: string;
  globMatcher: CompiledGlob | undefined;
  base: Awaited<ReturnType<typeof resolveExistingInHome>>;
  baseKind: Stats;
}

/** Resolves and checks a call's parameters, or says what the model must fix. */
async function resolveSearchOptions(
  settings: ComputerSettings,
  { pattern, path, glob }: SearchFilesParams,
): Promise<SearchOptions | { problem: string }> {
  let source = pattern;
  let flags = '';
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags = 'i';
  }
  try {
    new RegExp(source, flags);
  } catch (caught) {
    return { problem: `Invalid regular expression: ${(caught as Error).message}` };
  }
  let globMatcher: CompiledGlob | undefined;
  if (glob !== undefined) {
    // Without a slash the glob names files at any depth ("*.ts"), as ripgrep's --glob does.
    const compiled = compileGlob(glob, { matchBase: true });
    if (compiled.glob === undefined) return { problem: compiled.problem };
    globMatcher = compiled.glob;
  }
  let base: SearchOptions['base'];
  try {
    base = await resolveExistingInHome(settings.home, path ?? '.');
  } catch (caught) {
    if (caught instanceof HomePathError) return { problem: caught.message };
    throw caught;
  }
  // lstat cannot block (unlike an open of a FIFO) and base.real is already resolved.
  const baseKind = await lstat(base.real).catch(() => undefined);
  if (baseKind === undefined) return { problem: `${path} does not exist.` };
  if (isSpecialFile(baseKind)) {
    return {
      problem: `${path} is ${describeFileKind(baseKind)}, not a regular file; search_files only reads regular files and folders.`,
    };
  }
  return { source, flags, globMatcher, base, baseKind };
}

/**
 * Searches the files it is given, in batches, and keeps the tally. The main thread only opens and
 * checks each file (never blocking: O_NONBLOCK, fstat); the matcher thread reads, decodes and
 * matches it.
 */
class FileSearch {
  readonly results: string[] = [];
  readonly resultFiles = new Set<string>();
  searchedFiles = 0;
  skippedFiles = 0;
  skippedSpecialFiles = 0;
  /** The match cap was reached: nothing more is searched. */
  capped = false;
  private batch: Array<{ shown: string; handle: FileHandle; size: number }> = [];
  private batchBytes = 0;

  constructor(
    private readonly matcher: LineMatcher,
    private readonly limits: SearchLimits,
    private readonly signal: AbortSignal,
  ) {}

  /** Adds one file (shown as `shown`); resolves `false` once no more files are wanted. */
  async add(absolute: string, shown: string): Promise<boolean> {
    const opened = await openRegularFileAt(absolute);
    if (opened.handle === undefined) {
      if (opened.refused === 'special') this.skippedSpecialFiles += 1;
      return true;
    }
    if (opened.size > this.limits.maxFileBytes) {
      this.skippedFiles += 1;
      await opened.handle.close();
      return true;
    }
    this.batch.push({ shown, handle: opened.handle, size: opened.size });
    this.batchBytes += opened.size;
    return this.batchBytes < BATCH_BYTES && this.batch.length < BATCH_FILES ? true : this.flush();
  }

  /** Sends the pending batch to the matcher thread: one round trip per batch, not per file. */
  async flush(): Promise<boolean> {
    if (this.batch.length === 0 || this.capped) return !this.capped;
    const files = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    const room = this.limits.maxSearchMatches - this.results.length;
    let found: FileMatches[];
    try {
      found = await this.matcher.match(
        files.map((file) => ({ fd: file.handle.fd, size: file.size })),
        room + 1,
        this.signal,
      );
    } finally {
      await Promise.all(files.map((file) => file.handle.close()));
    }
    let total = 0;
    found.forEach((file, index) => {
      if (file.skipped === 'binary') this.skippedFiles += 1;
      if (file.skipped !== undefined) return;
      this.searchedFiles += 1;
      const shown = files[index]?.shown ?? '';
      for (const [line, text] of file.matches) {
        total += 1;
        if (total > room) break;
        const cut =
          text.length > this.limits.maxLineLength ? `${text.slice(0, this.limits.maxLineLength)}...` : text;
        this.results.push(`${shown}:${line}: ${cut}`);
        this.resultFiles.add(shown);
      }
    });
    if (total > room) this.capped = true;
    return !this.capped;
  }

  /** Closes the files of a batch never sent (the search failed part-way). */
  async closePending(): Promise<void> {
    await Promise.all(this.batch.map((file) => file.handle.close()));
  }
}

/** Walks the base (or takes the one file) into the search; resolves whether the walk limit was hit. */
async function walkIntoSearch(
  search: FileSearch,
  options: SearchOptions,
  settings: ComputerSettings,
  { path, glob }: SearchFilesParams,
  signal: AbortSignal,
): Promise<boolean> {
  const { base, baseKind, globMatcher } = options;
  const baseRelative = relativeToHome(settings.home, base.real);
  if (baseKind.isFile()) {
    await search.add(base.real, baseRelative);
    return false;
  }
  const summary = await walkDirectory(
    base.real,
    {
      maxEntries: settings.limits.maxWalkEntries,
      include: mentionedSkippedDirectories(glob, path),
      ...(globMatcher === undefined ? {} : { glob: globMatcher }),
      slice: new TimeSlice(),
      signal,
      label: baseRelative,
    },
    async ({ relative, absolute, dirent }) => {
      if (isSpecialFile(dirent)) {
        search.skippedSpecialFiles += 1;
        return undefined;
      }
      if (!dirent.isFile()) return undefined;
      return search.add(absolute, baseRelative === '.' ? relative : `${baseRelative}/${relative}`);
    },
  );
  return summary.exhausted;
}

/** The message the model gets for a search that was stopped, or `undefined` for an unexpected error. */
function searchStoppedProblem(caught: unknown, glob: string | undefined): string | undefined {
  if (caught instanceof MatchTimeoutError) {
    return `The search was stopped: ${caught.message} (a regular expression with nested repetition can take exponential time, or there are too many files; simplify the pattern or narrow path/glob).`;
  }
  if (caught instanceof GlobWorkLimitError) {
    return `The glob ${glob} is too costly to match against this many files (its work limit was reached); use fewer wildcards per name (e.g. *.ts rather than *a*b*c*), or narrow path.`;
  }
  if (caught instanceof HomePathError) return caught.message;
  return undefined;
}

/** Formats a finished search as the tool's result: the matches, then a note per limit reached. */
function formatSearchResult(
  pattern: string,
  search: FileSearch,
  exhausted: boolean,
  limits: SearchLimits,
): { content: string; details: SearchFilesDetails } {
  const { results, searchedFiles, skippedFiles, skippedSpecialFiles, capped } = search;
  const lines =
    results.length === 0 ? [`No matches for ${pattern} in ${plural(searchedFiles, 'file')}.`] : [...results];
  if (capped)
    lines.push(
      `[Only the first ${limits.maxSearchMatches} matches are shown; narrow the pattern, path or glob.]`,
    );
  if (exhausted)
    lines.push(`[The search stopped after visiting ${limits.maxWalkEntries} entries; narrow path or glob.]`);
  if (skippedFiles > 0)
    lines.push(
      `[${skippedFiles} binary or oversized file${skippedFiles === 1 ? ' was' : 's were'} skipped.]`,
    );
  if (skippedSpecialFiles > 0)
    lines.push(
      `[${skippedSpecialFiles} special file${skippedSpecialFiles === 1 ? '' : 's'} (named pipes, sockets or devices) ${skippedSpecialFiles === 1 ? 'was' : 'were'} skipped without being opened.]`,
    );
  return {
    content: lines.join('\n'),
    details: {
      matches: results.length,
      files: search.resultFiles.size,
      searchedFiles,
      skippedFiles,
      skippedSpecialFiles,
      truncated: capped || exhausted,
    },
  };
}

/**
 * `search_files { pattern, path?, glob? }`: searches text files inside the home for lines matching
 * a regular expression, returning `path:line: text`.
 *
 * Contract: binary and oversized files are skipped (and counted), and so are FIFOs, sockets and
 * devices, which are never opened; symlinks are not followed, and a folder swapped for a symlink
 * during the walk is not entered; the result is capped; an invalid regular expression or glob, a
 * path outside the home, a special file as `path` or a search that runs past its time limit is an
 * `isError` result.
 */
export function createSearchFilesTool(
  settings: ComputerSettings,
): WorkerAgentTool<SearchFilesParams, SearchFilesDetails> {
  const { limits } = settings;
  return defineFileTool({
    name: 'search_files',
    access: 'read',
    description: [
      'Search the text files inside your home directory (or under `path`) for lines matching a',
      'JavaScript regular expression; results are `path:line: text`, paths relative to the home.',
      `At most ${limits.maxSearchMatches} matches; binary files, .git and node_modules are skipped. Use`,
      'glob to restrict the files searched.',
    ].join(' '),
    schema,
    activity: {
      running: ({ pattern, path }) =>
        path === undefined ? `Searching for \`${pattern}\`` : `Searching for \`${pattern}\` in ${path}`,
      failed: ({ pattern }) => `Could not search for \`${pattern}\``,
      done: ({ pattern }, { matches }) =>
        `Found ${matches} match${matches === 1 ? '' : 'es'} for \`${pattern}\``,
    },
    async execute(params, { signal }) {
      const options = await resolveSearchOptions(settings, params);
      if ('problem' in options) return { content: options.problem, isError: true };
      const matcher = new LineMatcher(
        options.source,
        options.flags,
        limits.searchTimeoutMs,
        SIGNATURES.map(([, signature]) => signature),
      );
      const search = new FileSearch(matcher, limits, signal);
      let exhausted: boolean;
      try {
        exhausted = await walkIntoSearch(search, options, settings, params, signal);
        await search.flush();
      } catch (caught) {
        const problem = searchStoppedProblem(caught, params.glob);
        if (problem === undefined) throw caught;
        return { content: problem, isError: true };
      } finally {
        await search.closePending();
        await matcher.close();
      }
      return formatSearchResult(params.pattern, search, exhausted, limits);
    },
  });
}
