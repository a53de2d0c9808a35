import type { WorkerAgentTool } from '@switchyard/core';
import { z } from 'zod';
import { homeUsage, noteHomeWritten } from '../paths/home-usage';
import { writeFileInHome } from '../paths/write-file-in-home';
import type { ComputerSettings } from '../resolve-computer-settings';
import { defineFileTool } from './define-file-tool';
import { homePathFailure } from './home-path-failure';
import { plural } from './plural';
import { countLines } from './text-scan';
import { TimeSlice } from './time-slice';

const schema = z.object({
  path: z.string().describe('File path, relative to your home directory.'),
  content: z.string().describe('The complete new content of the file.'),
});

/** Parameters of `write_file`. */
export type WriteFileParams = z.output<typeof schema>;

/** What `write_file` records about a call. */
export interface WriteFileDetails {
  /** Path relative to the home. */
  path: string;
  /** The file did not exist before. */
  created: boolean;
  /** Lines written. */
  lines: number;
  /** Bytes written. */
  bytes: number;
}

/**
 * `write_file { path, content }`: creates or replaces a file inside the home, creating parent
 * folders, atomically (temp file and rename).
 *
 * Contract: paths outside the home (including through symlinks), directories and a write that
 * would take the home past `limits.maxHomeBytes` are `isError` results; nothing outside the home is
 * ever written.
 */
export function createWriteFileTool(
  settings: ComputerSettings,
): WorkerAgentTool<WriteFileParams, WriteFileDetails> {
  return defineFileTool({
    name: 'write_file',
    access: 'write',
    description:
      'Create or overwrite a text file inside your home directory with the given content, creating parent folders as needed. To change part of an existing file, prefer edit_file.',
    schema,
    activity: {
      running: ({ path }) => `Writing ${path}`,
      failed: ({ path }) => `Could not write ${path}`,
      done: (_params, details) => `Wrote ${plural(details.lines, 'line')} to ${details.path}`,
    },
    async execute({ path, content }) {
      try {
        const written = await writeFileInHome(settings.home, path, content, {
          quota: { usedBytes: await homeUsage(settings.home.root), maxBytes: settings.limits.maxHomeBytes },
        });
        noteHomeWritten(settings.home.root, written.addedBytes);
        const lines = await countLines(content, new TimeSlice());
        return {
          content: `${written.created ? 'Created' : 'Overwrote'} ${written.relative} (${plural(lines, 'line')}, ${written.bytes} bytes).`,
          details: { path: written.relative, created: written.created, lines, bytes: written.bytes },
        };
      } catch (caught) {
        return homePathFailure(caught);
      }
    },
  });
}
