import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ControlPlane } from '@switchyard/control-plane';
import type { McpServers } from '@switchyard/tools-mcp';
import { budgetsOf } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
import { tracedWorkServices, traceMeta } from './telemetry/traced-work-services';
import type { TextTurnServices } from './text-turn';

/** The services a command opened for its turns, and how to close them. */
export interface WorkerServices {
  /** What `buildTextTurnTools` takes. */
  services: TextTurnServices;
  /** The control plane, when a category needs it. */
  controlPlane: ControlPlane | undefined;
  /** The MCP servers, when `categories.mcp` is enabled. */
  mcp: McpServers | undefined;
  /** Closes everything opened (MCP servers first, then the control plane). */
  close(): Promise<void>;
}

/** True when an enabled category works through the control plane. */
export function needsControlPlane(config: WorkerConfig): boolean {
  const { schedule, jobs, workflow, brain, packages } = config.categories;
  const asked = (packages ?? []).some((entry) => entry.services.length > 0);
  return (
    asked || schedule !== undefined || jobs !== undefined || workflow !== undefined || brain !== undefined
  );
}

/**
 * Opens what the enabled categories need: the control plane (embedded PGlite in
 * `database.dataDir`, or the PostgreSQL server of `database.url`) for schedules, jobs, workflows and
 * the Brain, and
 * the configured MCP servers.
 *
 * Contract: rejects (after closing what did open) when the database or an MCP server cannot be
 * reached; the MCP error names the server.
 */
export async function openWorkerServices(
  config: WorkerConfig,
  options: { controlPlane?: boolean; onError?: (error: unknown) => void } = {},
): Promise<WorkerServices> {
  let controlPlane: ControlPlane | undefined;
  let mcp: McpServers | undefined;
  try {
    if (options.controlPlane ?? needsControlPlane(config)) {
      // Loaded on demand: PGlite and pg-boss cost start-up time a computer-only turn need not pay.
      const { openControlPlane } = await import('@switchyard/control-plane');
      controlPlane = await openControlPlane({
        ...(config.database.url === undefined
          ? { dataDir: config.database.dataDir }
          : { databaseUrl: config.database.url }),
        // DATABASE_URL was already applied by the configuration.
        environment: {},
        ...(config.categories.brain === undefined ? {} : { brain: config.categories.brain }),
        // The agents' hourly limits on schedules, workflows and jobs hold for `run` as for `serve`.
        startLimits: (agentId) => budgetsOf(config, agentId),
        ...(options.onError === undefined ? {} : { onError: options.onError }),
      });
    }
    if (config.categories.mcp !== undefined) {
      const { connectMcpServers } = await import('@switchyard/tools-mcp');
      mcp = await connectMcpServers({ servers: config.categories.mcp.servers, callMeta: traceMeta });
    }
  } catch (error) {
    await controlPlane?.close().catch(() => {});
    throw error;
  }
  return {
    services: {
      ...(controlPlane === undefined
        ? {}
        : {
            schedules: controlPlane.schedules,
            ...tracedWorkServices(controlPlane),
            brain: controlPlane.brain,
          }),
      ...(mcp === undefined ? {} : { mcp }),
    },
    controlPlane,
    mcp,
    close: async () => {
      await mcp?.close();
      await controlPlane?.close();
    },
  };
}

/**
 * Runs `work` on the control plane for a read-only command (`schedules list`, `turns list`, ...),
 * creating nothing: when the embedded database has not been created yet (no data directory in
 * `database.dataDir`), nothing was ever recorded, so `empty()` answers instead and no folder is made.
 *
 * Contract: rejects as `openControlPlane` does; the embedded database of a running `switchyard
 * serve` is that process's, and opening it names the process (`ControlPlaneInputError` on `dataDir`).
 */
export async function readControlPlane<T>(
  config: WorkerConfig,
  work: (controlPlane: ControlPlane) => Promise<T>,
  empty: () => T | Promise<T>,
): Promise<T> {
  if (config.database.url === undefined && !existsSync(path.join(config.database.dataDir, 'PG_VERSION'))) {
    return empty();
  }
  const opened = await openWorkerServices(config, { controlPlane: true });
  try {
    if (opened.controlPlane === undefined) throw new Error('the control plane did not open');
    return await work(opened.controlPlane);
  } finally {
    await opened.close();
  }
}
