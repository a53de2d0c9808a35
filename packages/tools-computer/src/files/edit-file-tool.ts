import { defineWorkerTool, type WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { HomePathError } from '../paths/home-path-error';
import { writeFileInHome } from '../paths/write-file-in-home';
import type { ComputerSettings } from '../resolve-computer-settings';
import { nearestCandidates } from './nearest-candidates';
import { numberLine, splitLines } from './read-file-tool';
import { readTextFile } from './read-text-file';

const schema = z.object({
  path: z.string().describe('File path, relative to your home directory.'),
  old_string: z.string().describe('The exact text to replace (without read_file line numbers).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one.'),
});

/** Parameters of `edit_file`. */
export type EditFileParams = z.output<typeof schema>;

/** What `edit_file` records about a call. */
export interface EditFileDetails {
  /** Path relative to the home. */
  path: string;
  /** Occurrences replaced. */
  replacements: number;
  /** Line of the first replacement (1-based). */
  firstLine: number;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf('\n');
    position !== -1 && position < index;
    position = text.indexOf('\n', position + 1)
  ) {
    line += 1;
  }
  return line;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) {
    found.push(index);
  }
  return found;
}

function numbered(text: string, firstLine: number, maxLength: number): string {
  return splitLines(text)
    .map((line, index) => numberLine(firstLine + index, line, maxLength))
    .join('\n');
}

/**
 * `edit_file { path, old_string, new_string, replace_all? }`: exact string replacement in a text
 * file inside the home, written atomically.
 *
 * Contract: `old_string` must occur exactly once unless `replace_all`; zero matches (with the
 * nearest candidates shown), several matches (with their lines), identical strings, binary files
 * and paths outside the home are `isError` results and leave the file untouched.
 */
export function createEditFileTool(
  settings: ComputerSettings,
): WorkerAgentTool<EditFileParams, EditFileDetails> {
  const { limits } = settings;
  return defineWorkerTool({
    name: 'edit_file',
    description: [
      'Replace exact text in a file inside your home directory. old_string must match the file',
      'exactly (whitespace included, without the line numbers read_file shows) and occur once;',
      'include surrounding lines to make it unique, or set replace_all to replace every occurrence.',
    ].join(' '),
    schema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ path }) => `Editing ${path}`,
    describeCompletedActivity: ({ path }, result) =>
      result.details === undefined
        ? `Could not edit ${path}`
        : `Edited ${result.details.path} (${result.details.replacements} replacement${result.details.replacements === 1 ? '' : 's'})`,
    async execute({ path, old_string, new_string, replace_all }) {
      const fail = (message: string) => ({ content: message, isError: true });
      if (old_string === '')
        return fail('old_string is empty; to create or overwrite a file use write_file.');
      if (old_string === new_string)
        return fail('old_string and new_string are identical; nothing would change.');
      try {
        const file = await readTextFile(settings.home, path, limits.maxFileBytes);
        const found = occurrences(file.text, old_string);
        if (found.length === 0) {
          const candidates = nearestCandidates(splitLines(file.text), old_string);
          const lines = [`old_string was not found in ${file.relative}.`];
          if (candidates.length === 0) {
            lines.push('Nothing in the file resembles it; read the file again with read_file.');
          } else {
            lines.push('Nearest candidates (copy the text exactly, without the line numbers):');
            for (const candidate of candidates) {
              const why = candidate.whitespaceOnly
                ? 'matches except for whitespace or indentation'
                : `${Math.round(candidate.similarity * 100)}% similar`;
              lines.push(
                `- at line ${candidate.line} (${why}):`,
                numbered(candidate.text, candidate.line, limits.maxLineLength),
              );
            }
          }
          return fail(lines.join('\n'));
        }
        if (found.length > 1 && replace_all !== true) {
          const at = found.map((index) => lineOf(file.text, index));
          return fail(
            `old_string occurs ${found.length} times in ${file.relative} (at lines ${at.join(', ')}); include more surrounding text to make it unique, or set replace_all to replace them all.`,
          );
        }
        const updated =
          replace_all === true
            ? file.text.split(old_string).join(new_string)
            : file.text.replace(old_string, () => new_string);
        await writeFileInHome(settings.home, file.relative, updated);
        const firstIndex = found[0] ?? 0;
        const firstLine = lineOf(updated, firstIndex);
        const updatedLines = splitLines(updated);
        const shownFrom = Math.max(1, firstLine - 2);
        const shownTo = Math.min(updatedLines.length, firstLine + splitLines(new_string).length + 1);
        const excerpt = updatedLines
          .slice(shownFrom - 1, shownTo)
          .map((line, index) => numberLine(shownFrom + index, line, limits.maxLineLength))
          .join('\n');
        return {
          content: [
            `Edited ${file.relative}: ${found.length} replacement${found.length === 1 ? '' : 's'} (first at line ${firstLine}).`,
            excerpt,
          ].join('\n'),
          details: { path: file.relative, replacements: found.length, firstLine },
        };
      } catch (caught) {
        if (caught instanceof HomePathError) return fail(caught.message);
        throw caught;
      }
    },
  });
}
