import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkSandbox } from '@switchyard/tools-computer';
import { commandSandbox } from '../config/command-sandbox';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import { formatInteger } from '../progress/format';
import { visibleControls } from '../progress/visible-controls';
import type { CommandIO } from '../run-text-turn';
import { toolSearchMode } from '../run-text-turn';
import { readSkillManifest } from '../skill-manifest';
import { buildToolManifest, type ToolManifestRow } from '../tool-manifest';
import { openWorkerServices } from '../worker-services';

/** Options of `switchyard tools`. */
export interface ToolsCommandOptions {
  /** `--agent`. */
  agent?: string | undefined;
  /** `--json`: the manifest as one JSON document. */
  json?: boolean;
}

/** What the access column shows: destructive calls are marked. */
function access(row: ToolManifestRow): string {
  if (row.destructive) return 'destructive';
  return row.readOnly ? 'read-only' : 'writes';
}

/**
 * `switchyard tools [--agent NAME] [--json]`: the manifest the next text turn would send: each tool with
 * its category, strict or the fallback reason, deferred or not, read-only or destructive, and its bytes;
 * then totals. MCP servers are connected to read their live tool lists. Read-only: no database is
 * opened and nothing is created in the working directory (an agent home that does not exist yet is
 * stood in for by an empty temporary folder, removed afterwards).
 */
export async function toolsCommand(config: WorkerConfig, options: ToolsCommandOptions, io: CommandIO) {
  const agent = resolveAgent(config, options.agent);
  const sandbox = commandSandbox(config, agent.id);
  // Probed before the tools are built, so building them reads the answer instead of probing again.
  const sandboxStatus = sandbox === undefined ? undefined : await checkSandbox(sandbox);
  const standIn = existsSync(agent.home)
    ? undefined
    : await mkdtemp(path.join(os.tmpdir(), 'switchyard-tools-'));
  const opened = await openWorkerServices(config, { controlPlane: false }).catch(async (error: unknown) => {
    if (standIn !== undefined) await rm(standIn, { recursive: true, force: true });
    throw error;
  });
  try {
    const toolSearch = toolSearchMode(config);
    const skills = await readSkillManifest(
      config,
      standIn === undefined ? agent : { ...agent, home: standIn },
    );
    const {
      tools: rows,
      skipped,
      requestToolsBytes,
      requestToolsEntries,
    } = buildToolManifest({
      config,
      agent: standIn === undefined ? agent : { ...agent, home: standIn },
      mcp: opened.mcp,
      toolSearch,
    });
    if (options.json === true) {
      io.stdout.write(
        `${JSON.stringify(
          {
            agent: agent.id,
            toolSearch,
            tools: rows,
            skipped,
            requestToolsBytes,
            requestToolsEntries,
            ...(sandboxStatus === undefined ? {} : { sandbox: sandboxStatus }),
            ...(skills === undefined ? {} : { skills }),
          },
          null,
          2,
        )}\n`,
      );
      return;
    }
    const table = rows.map((row) => [
      row.category,
      row.key,
      row.strict
        ? row.movedKeywords === undefined
          ? 'strict'
          : `strict, projected (moved: ${row.movedKeywords.join(', ')})`
        : `non-strict: ${row.fallbackReason ?? 'opted out'}`,
      row.deferred ? 'deferred' : 'eager',
      access(row),
      `${formatInteger(row.bytes)} B`,
    ]);
    const header = ['category', 'tool', 'mode', 'loading', 'access', 'bytes'];
    const widths = header.map((title, column) =>
      Math.max(title.length, ...table.map((row) => (row[column] ?? '').length)),
    );
    const format = (row: string[]) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd();
    io.stdout.write(
      `Tools the next text turn of agent ${agent.id} would send (Tool Search: ${toolSearch}):\n\n`,
    );
    io.stdout.write(`${format(header)}\n`);
    for (const row of table) io.stdout.write(`${format(row)}\n`);
    const deferred = rows.filter((row) => row.deferred);
    const strict = rows.filter((row) => row.strict).length;
    const destructive = rows.filter((row) => row.destructive).length;
    const toolBytes = rows.reduce((sum, row) => sum + row.bytes, 0);
    const deferredBytes = deferred.reduce((sum, row) => sum + row.bytes, 0);
    io.stdout.write(
      `\n${rows.length} tools (${strict} strict, ${rows.length - strict} non-strict; ` +
        `${deferred.length} deferred; ${destructive} destructive): ${formatInteger(toolBytes)} B of schemas, ` +
        `${formatInteger(deferredBytes)} B of them deferred; the request's tools array is ` +
        `${formatInteger(requestToolsBytes)} B in ${requestToolsEntries} entries` +
        `${toolSearch === 'client' && deferred.length > 0 ? ' plus the tool_search function' : ''}.\n`,
    );
    if (sandboxStatus !== undefined) io.stdout.write(`Commands (run_command): ${sandboxStatus.summary}.\n`);
    for (const tool of skipped) {
      io.stderr.write(`switchyard: MCP tool ${tool.server}.${tool.tool} left out: ${tool.reason}\n`);
    }
    if (skills !== undefined) {
      // Skill names and problems come from files a model may have written.
      const loaded = skills.loaded.length === 0 ? 'none' : skills.loaded.join(', ');
      io.stdout.write(`${visibleControls(`Skills (${skills.loaded.length}): ${loaded}`)}.\n`);
      for (const problem of skills.skipped) {
        const line = `switchyard: skill left out: ${problem.file}:${problem.line}: ${problem.message}`;
        io.stderr.write(`${visibleControls(line)}\n`);
      }
    }
  } finally {
    await opened.close();
    if (standIn !== undefined) await rm(standIn, { recursive: true, force: true });
  }
}
