import { type FileHandle, lstat } from 'node:fs/promises';
import { defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { relativeToHome, resolveExistingInHome } from '../paths/agent-home';
import { describeFileKind, isSpecialFile, openRegularFileAt } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import type { ComputerSettings } from '../resolve-computer-settings';
import { type CompiledGlob, compileGlob, GlobWorkLimitError } from './glob';
import { type FileMatches, LineMatcher, MatchTimeoutError } from './line-matcher';
import { mentionedSkippedDirectories } from './list-files-tool';
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
  return defineWorkerTool({
    name: 'search_files',
    description: [
      'Search the text files inside your home directory (or under `path`) for lines matching a',
      'JavaScript regular expression; results are `path:line: text`, paths relative to the home.',
      `At most ${limits.maxSearchMatches} matches; binary files, .git and node_modules are skipped. Use`,
      'glob to restrict the files searched.',
    ].join(' '),
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ pattern, path }) =>
      path === undefined ? `Searching for \`${pattern}\`` : `Searching for \`${pattern}\` in ${path}`,
    describeCompletedActivity: ({ pattern }, result) =>
      result.details === undefined
        ? `Could not search for \`${pattern}\``
        : `Found ${result.details.matches} match${result.details.matches === 1 ? '' : 'es'} for \`${pattern}\``,
    async execute({ pattern, path, glob }, { signal }) {
      const fail = (message: string) => ({ content: message, isError: true });
      let source = pattern;
      let flags = '';
      if (source.startsWith('(?i)')) {
        source = source.slice(4);
        flags = 'i';
      }
      try {
        new RegExp(source, flags);
      } catch (caught) {
        return fail(`Invalid regular expression: ${(caught as Error).message}`);
      }
      let globMatcher: CompiledGlob | undefined;
      if (glob !== undefined) {
        // Without a slash the glob names files at any depth ("*.ts"), as ripgrep's --glob does.
        const compiled = compileGlob(glob, { matchBase: true });
        if (compiled.glob === undefined) return fail(compiled.problem);
        globMatcher = compiled.glob;
      }
      let base: Awaited<ReturnType<typeof resolveExistingInHome>>;
      try {
        base = await resolveExistingInHome(settings.home, path ?? '.');
      } catch (caught) {
        if (caught instanceof HomePathError) return fail(caught.message);
        throw caught;
      }
      // lstat cannot block (unlike an open of a FIFO) and base.real is already resolved.
      const baseKind = await lstat(base.real).catch(() => undefined);
      if (baseKind === undefined) return fail(`${path} does not exist.`);
      if (isSpecialFile(baseKind)) {
        return fail(
          `${path} is ${describeFileKind(baseKind)}, not a regular file; search_files only reads regular files and folders.`,
        );
      }
      const results: string[] = [];
      const resultFiles = new Set<string>();
      let batch: Array<{ shown: string; handle: FileHandle; size: number }> = [];
      let batchBytes = 0;
      let searchedFiles = 0;
      let skippedFiles = 0;
      let skippedSpecialFiles = 0;
      let capped = false;
      const matcher = new LineMatcher(
        source,
        flags,
        limits.searchTimeoutMs,
        SIGNATURES.map(([, signature]) => signature),
      );

      // The main thread only opens and checks each file (never blocking: O_NONBLOCK, fstat); the
      // matcher thread reads, decodes and matches it.
      const searchFile = async (absolute: string, shown: string): Promise<boolean> => {
        const opened = await openRegularFileAt(absolute);
        if (opened.handle === undefined) {
          if (opened.refused === 'special') skippedSpecialFiles += 1;
          return true;
        }
        if (opened.size > limits.maxFileBytes) {
          skippedFiles += 1;
          await opened.handle.close();
          return true;
        }
        batch.push({ shown, handle: opened.handle, size: opened.size });
        batchBytes += opened.size;
        return batchBytes < BATCH_BYTES && batch.length < BATCH_FILES ? true : flush();
      };

      // Files go to the matcher thread in batches: one round trip per batch, not per file.
      const flush = async (): Promise<boolean> => {
        if (batch.length === 0 || capped) return !capped;
        const files = batch;
        batch = [];
        batchBytes = 0;
        const room = limits.maxSearchMatches - results.length;
        let found: FileMatches[];
        try {
          found = await matcher.match(
            files.map((file) => ({ fd: file.handle.fd, size: file.size })),
            room + 1,
            signal,
          );
        } finally {
          await Promise.all(files.map((file) => file.handle.close()));
        }
        let total = 0;
        found.forEach((file, index) => {
          if (file.skipped === 'binary') skippedFiles += 1;
          if (file.skipped !== undefined) return;
          searchedFiles += 1;
          const shown = files[index]?.shown ?? '';
          for (const [line, text] of file.matches) {
            total += 1;
            if (total > room) break;
            const cut =
              text.length > limits.maxLineLength ? `${text.slice(0, limits.maxLineLength)}...` : text;
            results.push(`${shown}:${line}: ${cut}`);
            resultFiles.add(shown);
          }
        });
        if (total > room) capped = true;
        return !capped;
      };

      let exhausted = false;
      const baseRelative = relativeToHome(settings.home, base.real);
      try {
        if (baseKind.isFile()) {
          await searchFile(base.real, baseRelative);
        } else {
          const summary = await walkDirectory(
            base.real,
            {
              maxEntries: limits.maxWalkEntries,
              include: mentionedSkippedDirectories(glob, path),
              ...(globMatcher === undefined ? {} : { glob: globMatcher }),
              slice: new TimeSlice(),
              signal,
              label: baseRelative,
            },
            async ({ relative, absolute, dirent }) => {
              if (isSpecialFile(dirent)) {
                skippedSpecialFiles += 1;
                return undefined;
              }
              if (!dirent.isFile()) return undefined;
              return searchFile(absolute, baseRelative === '.' ? relative : `${baseRelative}/${relative}`);
            },
          );
          exhausted = summary.exhausted;
        }
        await flush();
      } catch (caught) {
        if (caught instanceof MatchTimeoutError) {
          return fail(
            `The search was stopped: ${caught.message} (a regular expression with nested repetition can take exponential time, or there are too many files; simplify the pattern or narrow path/glob).`,
          );
        }
        if (caught instanceof GlobWorkLimitError) {
          return fail(
            `The glob ${glob} is too costly to match against this many files (its work limit was reached); use fewer wildcards per name (e.g. *.ts rather than *a*b*c*), or narrow path.`,
          );
        }
        if (caught instanceof HomePathError) return fail(caught.message);
        throw caught;
      } finally {
        await Promise.all(batch.map((file) => file.handle.close()));
        await matcher.close();
      }
      const lines =
        results.length === 0
          ? [`No matches for ${pattern} in ${searchedFiles} file${searchedFiles === 1 ? '' : 's'}.`]
          : [...results];
      if (capped)
        lines.push(
          `[Only the first ${limits.maxSearchMatches} matches are shown; narrow the pattern, path or glob.]`,
        );
      if (exhausted)
        lines.push(
          `[The search stopped after visiting ${limits.maxWalkEntries} entries; narrow path or glob.]`,
        );
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
          files: resultFiles.size,
          searchedFiles,
          skippedFiles,
          skippedSpecialFiles,
          truncated: capped || exhausted,
        },
      };
    },
  });
}
