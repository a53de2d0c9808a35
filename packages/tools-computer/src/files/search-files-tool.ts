import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import picomatch from 'picomatch';
import { z } from 'zod';
import { relativeToHome, resolveExistingInHome } from '../paths/agent-home';
import { HomePathError } from '../paths/home-path-error';
import type { ComputerSettings } from '../resolve-computer-settings';
import { LineMatcher, MatchTimeoutError } from './line-matcher';
import { checkGlob, mentionedSkippedDirectories } from './list-files-tool';
import { binaryKind } from './read-text-file';
import { walkDirectory } from './walk-directory';

const schema = z.object({
  pattern: z
    .string()
    .describe('JavaScript regular expression matched against each line; start with (?i) to ignore case.'),
  path: z
    .string()
    .optional()
    .describe('File or folder to search, relative to your home (default: the home).'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.md".'),
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
  /** The match cap or the walk limit was reached. */
  truncated: boolean;
}

const decoder = new TextDecoder('utf-8');
const BATCH_BYTES = 512 * 1024;
const BATCH_FILES = 256;

/**
 * `search_files { pattern, path?, glob? }`: searches text files inside the home for lines matching
 * a regular expression, returning `path:line: text`.
 *
 * Contract: binary and oversized files are skipped (and counted); symlinks are not followed; the
 * result is capped; an invalid regular expression, a path outside the home or a search that runs
 * past its time limit is an `isError` result.
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
      if (glob !== undefined) {
        const problem = checkGlob(glob);
        if (problem !== undefined) return fail(problem);
      }
      let base: Awaited<ReturnType<typeof resolveExistingInHome>>;
      try {
        base = await resolveExistingInHome(settings.home, path ?? '.');
      } catch (caught) {
        if (caught instanceof HomePathError) return fail(caught.message);
        throw caught;
      }
      const globMatches =
        glob === undefined
          ? undefined
          : picomatch(glob, {
              basename: !glob.includes('/'),
              dot: glob.includes('.') && glob.startsWith('.'),
            });
      const results: string[] = [];
      const resultFiles = new Set<string>();
      let batch: Array<{ shown: string; text: string }> = [];
      let batchBytes = 0;
      let searchedFiles = 0;
      let skippedFiles = 0;
      let capped = false;
      const matcher = new LineMatcher(source, flags, limits.searchTimeoutMs);

      const searchFile = async (absolute: string, shown: string): Promise<boolean> => {
        let bytes: Buffer;
        try {
          // O_NOFOLLOW: a file swapped for a symlink after the walk saw it is not followed.
          const handle = await open(
            absolute,
            constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
          );
          try {
            const stats = await handle.stat();
            if (!stats.isFile()) return true;
            if (stats.size > limits.maxFileBytes) {
              skippedFiles += 1;
              return true;
            }
            bytes = await handle.readFile();
          } finally {
            await handle.close();
          }
        } catch {
          return true;
        }
        if (binaryKind(bytes) !== undefined) {
          skippedFiles += 1;
          return true;
        }
        searchedFiles += 1;
        batch.push({ shown, text: decoder.decode(bytes) });
        batchBytes += bytes.length;
        return batchBytes < BATCH_BYTES && batch.length < BATCH_FILES ? true : flush();
      };

      // Files go to the matcher thread in batches: one round trip per batch, not per file.
      const flush = async (): Promise<boolean> => {
        if (batch.length === 0 || capped) return !capped;
        const files = batch;
        batch = [];
        batchBytes = 0;
        const room = limits.maxSearchMatches - results.length;
        const found = await matcher.match(
          files.map((file) => file.text),
          room + 1,
          signal,
        );
        let total = 0;
        found.forEach((matches, index) => {
          const shown = files[index]?.shown ?? '';
          for (const [line, text] of matches) {
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
      try {
        const stats = await open(base.real, constants.O_RDONLY).then(async (handle) => {
          try {
            return await handle.stat();
          } finally {
            await handle.close();
          }
        });
        if (stats.isFile()) {
          await searchFile(base.real, relativeToHome(settings.home, base.real));
        } else {
          const baseRelative = relativeToHome(settings.home, base.real);
          const summary = await walkDirectory(
            base.real,
            { maxEntries: limits.maxWalkEntries, include: mentionedSkippedDirectories(glob, path), signal },
            async ({ relative, absolute, dirent }) => {
              if (!dirent.isFile()) return undefined;
              if (globMatches !== undefined && !globMatches(relative)) return undefined;
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
        throw caught;
      } finally {
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
      return {
        content: lines.join('\n'),
        details: {
          matches: results.length,
          files: resultFiles.size,
          searchedFiles,
          skippedFiles,
          truncated: capped || exhausted,
        },
      };
    },
  });
}
