import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentToolResult, AnyWorkerAgentTool, WorkerAgentTool } from '@switchyard/core';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, beforeEach } from 'vitest';
import type { ComputerToolsLimits } from '../computer-tools-context';
import { type ComputerSettings, resolveComputerSettings } from '../resolve-computer-settings';

/** A temporary agent home with a folder beside it that is outside the home. */
export interface TempHome {
  /** The home directory. */
  home: string;
  /** A directory outside the home. */
  outside: string;
  /** Writes a file relative to the home, creating parents. */
  write(relative: string, content: string | Uint8Array, mode?: number): string;
  /** Removes everything. */
  remove(): void;
}

/** Creates a temporary home (and an outside folder) for a test. */
export function createTempHome(prefix = 'switchyard-tools-'): TempHome {
  const base = mkdtempSync(path.join(tmpdir(), prefix));
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  mkdirSync(home);
  mkdirSync(outside);
  return {
    home,
    outside,
    write(relative, content, mode) {
      const file = path.join(home, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content, mode === undefined ? undefined : { mode });
      return file;
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * Gives each test of the calling file a fresh temporary home: made (then `seed`ed) before the test,
 * removed after it. The returned object always stands for the current test's home.
 */
export function useTempHome(seed?: () => void, prefix?: string): TempHome {
  let current: TempHome | undefined;
  const now = (): TempHome => {
    if (current === undefined) throw new Error('the temporary home exists only while a test runs');
    return current;
  };
  beforeEach(() => {
    current = createTempHome(prefix);
    seed?.();
  });
  afterEach(() => {
    current?.remove();
    current = undefined;
  });
  return {
    get home() {
      return now().home;
    },
    get outside() {
      return now().outside;
    },
    write: (relative, content, mode) => now().write(relative, content, mode),
    remove: () => now().remove(),
  };
}

/** Makes the tool under test on the current temporary home, with the given limits (defaults for the rest). */
export function toolOnHome<TTool>(
  temp: TempHome,
  create: (settings: ComputerSettings) => TTool,
): (limits?: ComputerToolsLimits) => TTool {
  return (limits = {}) => create(resolveComputerSettings({ home: temp.home, limits }));
}

/** Parses params with the tool's Zod schema (every computer tool is a Zod tool). */
export function parseParams<TParams>(tool: WorkerAgentTool<TParams>, params: unknown): TParams {
  if (tool.schema === undefined) throw new Error(`tool '${tool.name}' is a JSON-Schema tool, not a Zod one`);
  return tool.schema.parse(params);
}

/** Validates raw arguments with the tool's schema, as the loop does, and executes the tool. */
export async function callTool(
  tool: AnyWorkerAgentTool,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ result: AgentToolResult; text: string; label: string | undefined }> {
  const params = parseParams(tool, args);
  const result = await tool.execute(params, createTestToolContext({ signal }));
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
  return { result, text, label: tool.describeCompletedActivity?.(params, result) };
}
