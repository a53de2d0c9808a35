import { constants } from 'node:fs';
import { open, readdir, unlink } from 'node:fs/promises';
import { type AgentHome, openDirectoryInHome } from '../paths/agent-home';
import type { OutputSink } from './output-capture';

/** Where `run_command` saves output it had to cut, relative to the home. */
export const COMMAND_OUTPUT_DIRECTORY = '.switchyard/command-output';

/** The names `openOutputSink` gives: an ISO time (`:` as `-`), so names sort by age. */
const SAVED_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f]{8}\.log$/;

/**
 * Opens a new file for one command's cut output in `.switchyard/command-output/` of the home, first
 * removing the oldest saved outputs so that, with it, at most `keep` remain. Only files named as
 * this function names them are counted or removed; everything goes through the checked directory
 * descriptor, so a folder swapped for a symlink is not followed.
 */
export function openOutputSink(home: AgentHome, commandId: string, keep: number): () => Promise<OutputSink> {
  return async () => {
    const directory = await openDirectoryInHome(home, COMMAND_OUTPUT_DIRECTORY);
    const name = `${new Date().toISOString().replaceAll(':', '-')}-${commandId.slice(0, 8)}.log`;
    try {
      const saved = (await readdir(directory.entry('.'))).filter((entry) => SAVED_NAME.test(entry)).sort();
      const excess = saved.length - (keep - 1);
      for (const old of saved.slice(0, Math.max(0, excess))) {
        await unlink(directory.entry(old)).catch(() => undefined);
      }
      const handle = await open(
        directory.entry(name),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      return {
        relative: `${COMMAND_OUTPUT_DIRECTORY}/${name}`,
        write: async (chunk) => {
          await handle.write(chunk);
        },
        close: () => handle.close(),
      };
    } finally {
      await directory.close();
    }
  };
}
