import type { AgentToolResult, WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import type { ComputerSettings } from '../resolve-computer-settings';
import { defineFileTool } from './define-file-tool';
import { homePathFailure } from './home-path-failure';
import { plural } from './plural';
import { scanTextLines } from './scan-text-lines';

const schema = z.object({
  path: z.string().describe('File path, relative to your home directory.'),
  offset: z.number().int().optional().describe('Line number to start reading at (1 is the first line).'),
  limit: z.number().int().optional().describe('Number of lines to read.'),
});

/** Parameters of `read_file`. */
export type ReadFileParams = z.output<typeof schema>;

/** What `read_file` records about a call. */
export interface ReadFileDetails {
  /** Path relative to the home (after resolving symlinks). */
  path: string;
  /** First line returned (1-based); 0 when none. */
  startLine: number;
  /** Last line returned; 0 when none. */
  endLine: number;
  /** Lines returned. */
  linesRead: number;
  /** Lines in the file. */
  totalLines: number;
  /** More lines follow the last one returned. */
  truncated: boolean;
}

/** Splits text into lines; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Formats one numbered line the way `cat -n` does. */
export function numberLine(lineNumber: number, line: string, maxLength: number): string {
  const shown =
    line.length > maxLength ? `${line.slice(0, maxLength)}... [line cut at ${maxLength} characters]` : line;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

// ignoreBOM: keep a byte order mark inside the file as the character it is.
const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

function error(message: string): AgentToolResult<ReadFileDetails> {
  return { content: message, isError: true };
}

/**
 * `read_file { path, offset?, limit? }`: reads lines of a text file inside the home, numbered.
 *
 * Contract: paths outside the home, missing, binary or oversized files and an offset past the end
 * are `isError` results whose text says what to do instead.
 */
export function createReadFileTool(
  settings: ComputerSettings,
): WorkerAgentTool<ReadFileParams, ReadFileDetails> {
  const { limits } = settings;
  return defineFileTool({
    name: 'read_file',
    access: 'read',
    description: [
      'Read a text file inside your home directory. Lines come numbered (`cat -n` style; the numbers',
      `are not part of the file). Returns up to ${limits.maxReadLines} lines from offset; use offset and limit`,
      'to page through long files. Binary files are refused.',
    ].join(' '),
    schema,
    activity: {
      running: ({ path }) => `Reading ${path}`,
      failed: ({ path }) => `Could not read ${path}`,
      done: (_params, details) => `Read ${plural(details.linesRead, 'line')} of ${details.path}`,
    },
    async execute({ path, offset, limit }) {
      if (offset !== undefined && offset < 1)
        return error(`offset must be 1 or more (line numbers start at 1), got ${offset}.`);
      if (limit !== undefined && limit < 1) return error(`limit must be 1 or more, got ${limit}.`);
      const start = offset ?? 1;
      const wanted = Math.min(limit ?? limits.maxReadLines, limits.maxReadLines);
      const out: string[] = [];
      let outBytes = 0;
      let end = start - 1;
      let scanned: Awaited<ReturnType<typeof scanTextLines>>;
      try {
        // One pass through the file in 64 KiB pieces: lines are counted in the bytes (a newline is
        // byte 10 in UTF-8) and only the lines shown are decoded. Reading whole files held 10 MB per
        // call, and a response of 128 parallel calls grew the process by a gigabyte.
        scanned = await scanTextLines(settings.home, path, limits.maxFileBytes, {
          from: start,
          // A shown line keeps at most maxLineLength characters: decoding 4 bytes per character more
          // than that is always enough to know it was cut.
          keepBytes: (limits.maxLineLength + 1) * 4,
          onLine: (bytes) => {
            const formatted = numberLine(end + 1, lineDecoder.decode(bytes), limits.maxLineLength);
            outBytes += Buffer.byteLength(formatted) + 1;
            if (outBytes > limits.maxReadBytes && out.length > 0) return false;
            out.push(formatted);
            end += 1;
            return out.length < wanted;
          },
        });
      } catch (caught) {
        return homePathFailure(caught);
      }
      const { totalLines, relative } = scanned;
      if (totalLines === 0) {
        return {
          content: `${relative} is empty.`,
          details: {
            path: relative,
            startLine: 0,
            endLine: 0,
            linesRead: 0,
            totalLines: 0,
            truncated: false,
          },
        };
      }
      if (start > totalLines) {
        return error(`offset ${start} is past the end of ${relative}, which has ${totalLines} lines.`);
      }
      const truncated = end < totalLines;
      if (truncated) {
        out.push(`[Lines ${start}-${end} of ${totalLines} shown; continue with offset ${end + 1}.]`);
      }
      return {
        content: out.join('\n'),
        details: {
          path: relative,
          startLine: start,
          endLine: end,
          linesRead: end - start + 1,
          totalLines,
          truncated,
        },
      };
    },
  });
}
