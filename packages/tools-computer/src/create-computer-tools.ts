import type { AnyWorkerAgentTool } from '@switchyard/core';
import { createRunCommandTool } from './command/run-command-tool';
import type { ComputerToolsContext } from './computer-tools-context';
import { createEditFileTool } from './files/edit-file-tool';
import { createListFilesTool } from './files/list-files-tool';
import { createReadFileTool } from './files/read-file-tool';
import { createSearchFilesTool } from './files/search-files-tool';
import { createWriteFileTool } from './files/write-file-tool';
import { resolveComputerSettings } from './resolve-computer-settings';

/**
 * Creates the computer tools for one turn: `run_command`, `read_file`, `list_files`,
 * `search_files`, `write_file` and `edit_file`, all confined to the agent home; commands run in the
 * bubblewrap sandbox where it works (see the README's security model for what is confined when).
 *
 * Contract: throws `ComputerToolsConfigError` naming the field for a bad context (missing home, a
 * secret-looking `env` name, a bad limit, a bad `sandbox` option, or sandbox mode `required` where
 * bubblewrap cannot sandbox commands). The tools never throw for the model's mistakes: paths
 * outside the home, missing or binary files, failed edits and timeouts become `isError` results.
 *
 * @example
 * const tools = [
 *   ...createComputerTools({
 *     home: '/srv/agents/ada',
 *     env: ['NODE_ENV'],
 *     sandbox: { mode: 'required', network: 'none', hiddenPaths: ['/srv/agents'] },
 *     limits: { defaultTimeoutMs: 120_000 },
 *   }),
 * ];
 */
export function createComputerTools(context: ComputerToolsContext): AnyWorkerAgentTool[] {
  const settings = resolveComputerSettings(context);
  return [
    createRunCommandTool(settings),
    createReadFileTool(settings),
    createListFilesTool(settings),
    createSearchFilesTool(settings),
    createWriteFileTool(settings),
    createEditFileTool(settings),
  ];
}
