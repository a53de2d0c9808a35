import { mkdir } from 'node:fs/promises';
import { collectToolSchemas } from '@switchyard/core';
import type { ScheduleService } from '@switchyard/tools-schedule';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import { formatInteger } from '../progress/format';
import type { CommandIO } from '../run-text-turn';
import { toolSearchMode } from '../run-text-turn';
import { buildTextTurnSections } from '../text-turn';
import { openWorkerServices } from '../worker-services';

// The manifest needs the tools' definitions, not a database: schedule tools are built over a
// service that is never called, so `switchyard tools` does not open the control plane.
const definitionsOnly: ScheduleService = {
  createSchedule: () => Promise.reject(new Error('switchyard tools does not run tools')),
  listSchedules: () => Promise.reject(new Error('switchyard tools does not run tools')),
  cancelSchedule: () => Promise.reject(new Error('switchyard tools does not run tools')),
};

/**
 * `switchyard tools [--agent NAME]`: the manifest the next text turn would send: each tool with
 * its category, strict or the fallback reason, deferred or not, and its bytes; then totals. MCP
 * servers are connected to read their live tool lists.
 */
export async function toolsCommand(config: WorkerConfig, agentName: string | undefined, io: CommandIO) {
  const agent = resolveAgent(config, agentName);
  await mkdir(agent.home, { recursive: true });
  const opened = await openWorkerServices(config, { controlPlane: false });
  try {
    const sections = buildTextTurnSections({
      config,
      agent,
      services: { ...opened.services, schedules: definitionsOnly },
      todos: { items: [] },
      signal: new AbortController().signal,
    });
    const tools = sections.flatMap((section) => section.tools);
    const categoryOf = new Map(
      sections.flatMap((section) => section.tools.map((tool) => [tool, section.category] as const)),
    );
    const toolSearch = toolSearchMode(config);
    const manifest = collectToolSchemas(tools, { toolSearch });
    const rows = manifest.entries.map((entry, index) => {
      const tool = tools[index];
      return [
        (tool === undefined ? undefined : categoryOf.get(tool)) ?? '?',
        entry.key,
        entry.strict ? 'strict' : `non-strict: ${entry.fallbackReason ?? 'opted out'}`,
        entry.deferred ? 'deferred' : 'eager',
        `${formatInteger(entry.bytes)} B`,
      ];
    });
    const header = ['category', 'tool', 'mode', 'loading', 'bytes'];
    const widths = header.map((title, column) =>
      Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
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
    for (const row of rows) io.stdout.write(`${format(row)}\n`);
    const deferred = manifest.entries.filter((entry) => entry.deferred);
    const strict = manifest.entries.filter((entry) => entry.strict).length;
    const toolBytes = manifest.entries.reduce((sum, entry) => sum + entry.bytes, 0);
    const deferredBytes = deferred.reduce((sum, entry) => sum + entry.bytes, 0);
    io.stdout.write(
      `\n${manifest.entries.length} tools (${strict} strict, ${manifest.entries.length - strict} non-strict; ` +
        `${deferred.length} deferred): ${formatInteger(toolBytes)} B of schemas, ` +
        `${formatInteger(deferredBytes)} B of them deferred; the request's tools array is ` +
        `${formatInteger(manifest.bytes)} B in ${manifest.tools.length} entries` +
        `${toolSearch === 'client' && deferred.length > 0 ? ' plus the tool_search function' : ''}.\n`,
    );
    for (const skipped of opened.mcp?.skippedTools() ?? []) {
      io.stderr.write(`switchyard: MCP tool ${skipped.server}.${skipped.tool} left out: ${skipped.reason}\n`);
    }
  } finally {
    await opened.close();
  }
}
