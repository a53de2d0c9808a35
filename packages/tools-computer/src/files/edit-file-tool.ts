import type { WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { homeUsage, noteHomeWritten } from '../paths/home-usage';
import { writeFileInHome } from '../paths/write-file-in-home';
import type { ComputerSettings } from '../resolve-computer-settings';
import { defineFileTool } from './define-file-tool';
import { homePathFailure } from './home-path-failure';
import { nearestCandidates } from './nearest-candidates';
import { plural } from './plural';
import { numberLine, splitLines } from './read-file-tool';
import { readTextFile } from './read-text-file';
import {
  countLines,
  forEachOccurrence,
  lineNumbersAt,
  linesOfPieces,
  offsetOfLine,
  replaceEvery,
} from './text-scan';
import { TimeSlice } from './time-slice';

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

/** Occurrence lines named in a "found N times" error; the rest are counted. */
const MAX_LISTED_LINES = 20;
/** Lines shown per near-miss candidate and in the excerpt after an edit. */
const MAX_SHOWN_LINES = 30;

function numbered(lines: readonly string[], firstLine: number, maxLength: number, total: number): string {
  const shown = lines.map((line, index) => numberLine(firstLine + index, line, maxLength));
  if (total > lines.length) shown.push(`[... ${(total - lines.length).toLocaleString('en-US')} more lines]`);
  return shown.join('\n');
}

/**
 * `edit_file { path, old_string, new_string, replace_all? }`: exact string replacement in a text
 * file inside the home, written atomically.
 *
 * Contract: `old_string` must occur exactly once unless `replace_all`; zero matches (with the
 * nearest candidates shown), several matches (with the first 20 lines and a count of the rest),
 * identical strings, binary files and paths outside the home are `isError` results and leave the
 * file untouched. Searching, near-miss search and replacement are linear in the file and yield to
 * the event loop while they run.
 */
export function createEditFileTool(
  settings: ComputerSettings,
): WorkerAgentTool<EditFileParams, EditFileDetails> {
  const { limits } = settings;
  return defineFileTool({
    name: 'edit_file',
    access: 'write',
    description: [
      'Replace exact text in a file inside your home directory. old_string must match the file',
      'exactly (whitespace included, without the line numbers read_file shows) and occur once;',
      'include surrounding lines to make it unique, or set replace_all to replace every occurrence.',
    ].join(' '),
    schema,
    activity: {
      running: ({ path }) => `Editing ${path}`,
      failed: ({ path }) => `Could not edit ${path}`,
      done: (_params, details) => `Edited ${details.path} (${plural(details.replacements, 'replacement')})`,
    },
    async execute({ path, old_string, new_string, replace_all }) {
      const fail = (message: string) => ({ content: message, isError: true });
      if (old_string === '')
        return fail('old_string is empty; to create or overwrite a file use write_file.');
      if (old_string === new_string)
        return fail('old_string and new_string are identical; nothing would change.');
      try {
        const file = await readTextFile(settings.home, path, limits.maxFileBytes);
        // Every scan below is linear and yields: the file and old_string are the model's.
        const slice = new TimeSlice();
        const firstOffsets: number[] = [];
        let found = 0;
        await forEachOccurrence(file.text, old_string, slice, (offset) => {
          found += 1;
          if (firstOffsets.length < MAX_LISTED_LINES) firstOffsets.push(offset);
          return undefined;
        });
        if (found === 0) {
          const candidates = await nearestCandidates(file.text, old_string, slice);
          const lines = [`old_string was not found in ${file.relative}.`];
          if (candidates.length === 0) {
            lines.push('Nothing in the file resembles it; read the file again with read_file.');
          } else {
            lines.push('Nearest candidates (copy the text exactly, without the line numbers):');
            for (const candidate of candidates) {
              const why = candidate.whitespaceOnly
                ? 'matches except for whitespace or indentation'
                : `${Math.round(candidate.similarity * 100)}% similar`;
              const candidateLines = splitLines(candidate.text);
              lines.push(
                `- at line ${candidate.line} (${why}):`,
                numbered(
                  candidateLines.slice(0, MAX_SHOWN_LINES),
                  candidate.line,
                  limits.maxLineLength,
                  candidateLines.length,
                ),
              );
            }
          }
          return fail(lines.join('\n'));
        }
        if (found > 1 && replace_all !== true) {
          const at = (await lineNumbersAt(file.text, firstOffsets, slice)).join(', ');
          const more = found - firstOffsets.length;
          const where = more > 0 ? `${at} and ${more.toLocaleString('en-US')} more` : at;
          return fail(
            `old_string occurs ${found.toLocaleString('en-US')} times in ${file.relative} (at lines ${where}); include more surrounding text to make it unique, or set replace_all to replace them all.`,
          );
        }
        const firstIndex = firstOffsets[0] ?? 0;
        // The new text stays in pieces up to the file: joined, 10 MB was one 70-140 ms copy.
        const updated =
          replace_all === true
            ? await replaceEvery(file.text, old_string, new_string, slice)
            : [file.text.slice(0, firstIndex), new_string, file.text.slice(firstIndex + old_string.length)];
        const written = await writeFileInHome(settings.home, file.relative, updated, {
          quota: { usedBytes: await homeUsage(settings.home.root), maxBytes: settings.limits.maxHomeBytes },
        });
        noteHomeWritten(settings.home.root, written.addedBytes);
        // Text before the first replacement is unchanged, so its line and offsets are the same.
        const [firstLine = 1] = await lineNumbersAt(file.text, [firstIndex], slice);
        const shownFrom = Math.max(1, firstLine - 2);
        const wanted = firstLine + (await countLines(new_string, slice)) + 1 - shownFrom + 1;
        const excerpt = await linesOfPieces(
          updated,
          await offsetOfLine(file.text, shownFrom, slice),
          Math.min(wanted, MAX_SHOWN_LINES + 1),
          limits.maxLineLength + 1,
          slice,
        );
        const shown = excerpt
          .slice(0, MAX_SHOWN_LINES)
          .map((line, index) => numberLine(shownFrom + index, line, limits.maxLineLength));
        if (excerpt.length > MAX_SHOWN_LINES) shown.push(`[Excerpt cut at ${MAX_SHOWN_LINES} lines.]`);
        return {
          content: [
            `Edited ${file.relative}: ${found.toLocaleString('en-US')} replacement${found === 1 ? '' : 's'} (first at line ${firstLine}).`,
            ...shown,
          ].join('\n'),
          details: { path: file.relative, replacements: found, firstLine },
        };
      } catch (caught) {
        return homePathFailure(caught);
      }
    },
  });
}
