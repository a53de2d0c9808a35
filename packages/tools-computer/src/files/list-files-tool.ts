import type { Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { readFolderInHome, relativeToHome, resolveExistingInHome } from '../paths/agent-home';
import { describeFileKind } from '../paths/checked-open';
import { HomePathError } from '../paths/home-path-error';
import type { ComputerSettings } from '../resolve-computer-settings';
import { defineFileTool } from './define-file-tool';
import { compileGlob } from './glob';
import { GlobWorkLimitError } from './glob/glob-work-limit-error';
import { homePathFailure } from './home-path-failure';
import { plural } from './plural';
import { TimeSlice } from './time-slice';
import { SKIPPED_DIRECTORIES, walkDirectory } from './walk-directory';

const schema = z.object({
  pattern: z
    .string()
    .describe(
      'Glob pattern, e.g. "**/*.ts", "src/*", "*.{md,txt}", "docs/" (folders only). No negation or extended globs.',
    ),
  path: z.string().optional().describe('Folder to search in, relative to your home (default: the home).'),
});

/** Parameters of `list_files`. */
export type ListFilesParams = z.output<typeof schema>;

/** What `list_files` records about a call. */
export interface ListFilesDetails {
  /** The folder searched, relative to the home. */
  path: string;
  /** Entries returned. */
  count: number;
  /** More entries matched than were returned, or the walk stopped at its limit. */
  truncated: boolean;
}

/** Folder names a pattern explicitly mentions among the ones skipped by default. */
export function mentionedSkippedDirectories(...patterns: Array<string | undefined>): Set<string> {
  const mentioned = new Set<string>();
  for (const name of SKIPPED_DIRECTORIES) {
    if (patterns.some((pattern) => pattern?.includes(name) === true)) mentioned.add(name);
  }
  return mentioned;
}

/**
 * `list_files { pattern, path? }`: lists files and folders inside the home matching a glob.
 *
 * Contract: symlinks are listed, never followed; `.git` and `node_modules` are skipped unless the
 * pattern names them; the list is capped. A path outside the home or a bad pattern is an `isError`
 * result.
 */
export function createListFilesTool(
  settings: ComputerSettings,
): WorkerAgentTool<ListFilesParams, ListFilesDetails> {
  const { limits } = settings;
  return defineFileTool({
    name: 'list_files',
    access: 'read',
    description: [
      'List files inside your home directory whose path (relative to `path`) matches a glob',
      '(`*` and `?` within a name, `**` across folders, `{a,b}`, `[abc]`, a trailing / for folders only;',
      'wildcards skip dot names unless the dot is written). Paths come back relative to the',
      `home, folders with a trailing /. At most ${limits.maxListEntries} entries; .git and node_modules are`,
      'skipped unless the pattern names them; symlinks are not followed.',
    ].join(' '),
    schema,
    activity: {
      running: ({ pattern, path }) =>
        path === undefined ? `Listing ${pattern}` : `Listing ${pattern} in ${path}`,
      failed: ({ pattern }) => `Could not list ${pattern}`,
      done: ({ pattern }, details) => `Found ${plural(details.count, 'file')} matching ${pattern}`,
    },
    async execute({ pattern, path }, { signal }) {
      const compiled = compileGlob(pattern);
      if (compiled.glob === undefined) return { content: compiled.problem, isError: true };
      let base: { real: string; entries?: Dirent[] };
      try {
        // One checked open for the usual call; the step by step path below only when it cannot tell,
        // so a refusal names what is wrong.
        base =
          (await readFolderInHome(settings.home, path ?? '.', limits.maxWalkEntries + 1)) ??
          (await resolveExistingInHome(settings.home, path ?? '.'));
      } catch (caught) {
        return homePathFailure(caught);
      }
      if (base.entries === undefined) {
        const kind = await lstat(base.real).catch(() => undefined);
        if (kind === undefined) return { content: `${path} does not exist.`, isError: true };
        if (!kind.isDirectory()) {
          return {
            content: `${path} is ${kind.isFile() ? 'a file' : describeFileKind(kind)}, not a folder; list_files searches folders.`,
            isError: true,
          };
        }
      }
      const baseRelative = relativeToHome(settings.home, base.real);
      const found: string[] = [];
      let more = false;
      let summary: Awaited<ReturnType<typeof walkDirectory>>;
      try {
        summary = await walkDirectory(
          base.real,
          {
            maxEntries: limits.maxWalkEntries,
            include: mentionedSkippedDirectories(pattern),
            glob: compiled.glob,
            slice: new TimeSlice(),
            signal,
            label: baseRelative,
            ...(base.entries === undefined ? {} : { baseEntries: base.entries }),
          },
          ({ relative, dirent }) => {
            if (found.length >= limits.maxListEntries) {
              more = true;
              return false;
            }
            const shown = baseRelative === '.' ? relative : `${baseRelative}/${relative}`;
            found.push(dirent.isDirectory() ? `${shown}/` : shown);
            return undefined;
          },
        );
      } catch (caught) {
        if (caught instanceof HomePathError) return { content: caught.message, isError: true };
        if (caught instanceof GlobWorkLimitError) {
          return {
            content: `The pattern ${pattern} is too costly to match against this many entries (its work limit was reached); use fewer wildcards per name (e.g. *.ts rather than *a*b*c*), or narrow path.`,
            isError: true,
          };
        }
        throw caught;
      }
      const where = baseRelative === '.' ? 'the home' : baseRelative;
      const lines = found.length === 0 ? [`No files match ${pattern} in ${where}.`] : [...found];
      if (more)
        lines.push(
          `[Only the first ${limits.maxListEntries} matches are shown; narrow the pattern or the path.]`,
        );
      if (summary.exhausted) {
        lines.push(
          `[The search stopped after visiting ${limits.maxWalkEntries} entries; narrow the pattern or the path.]`,
        );
      }
      return {
        content: lines.join('\n'),
        details: { path: baseRelative, count: found.length, truncated: more || summary.exhausted },
      };
    },
  });
}
