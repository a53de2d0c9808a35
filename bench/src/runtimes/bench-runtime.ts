import type { z } from 'zod';
import type { ToolSpec } from '../scenarios/varied-tools';

/** A tool as the benchmarks define it, before any runtime adapts it. */
export interface BenchTool {
  /** Tool name. */
  name: string;
  /** What it does. */
  description: string;
  /** Its parameters, as Zod (runtimes that take Zod use this). */
  schema: z.ZodObject;
  /** Its parameters as the JSON Schema sent to the model (runtimes that take JSON Schema use this). */
  parameters: Record<string, unknown>;
  /** Run concurrently with neighbouring parallel calls. */
  parallel: boolean;
  /** The work. */
  execute(params: Record<string, unknown>): Promise<string>;
}

/** One scripted turn to run: where the fake model is, what it may call, what it is asked. */
export interface BenchTurn {
  /** The fake server's `/v1` URL. */
  baseURL: string;
  /** The turn's tools. */
  tools: readonly BenchTool[];
  /** System instructions. */
  instructions: string;
  /** The user message. */
  input: string;
}

/**
 * A turn whose tools are composed inside the timing, as `apps/worker` composes them on every turn:
 * the runner calls `specs()` and defines its tools (and converts their schemas) within the turn.
 */
export interface ComposedTurn {
  /** The fake server's `/v1` URL. */
  baseURL: string;
  /** System instructions. */
  instructions: string;
  /** The user message. */
  input: string;
  /** The turn's tools: module-level schemas, or new schema objects on every call (`fresh`). */
  specs(): readonly ToolSpec[];
  /** A tool's work, the same for every runtime: echoes its subject (and counts executions). */
  execute(spec: ToolSpec, params: Record<string, unknown>): Promise<string>;
  /**
   * Called once the turn's tools are defined and their schemas converted, just before the loop
   * starts: a timing mark, by the runtimes that convert before their loop (Switchyard, the bare
   * loop; the peers convert inside their own calls, so they do not mark it).
   */
  toolsReady?(): void;
}

/**
 * An agent runtime under benchmark: Switchyard, the bare openai SDK loop, and (later) peers such as
 * the AI SDK, the OpenAI Agents SDK or pi-agent-core. `prepare` does the per-process set-up a
 * worker would do once (adapting tools, creating clients); the returned function runs one turn to
 * its end and resolves with the final text.
 */
export interface BenchRuntime {
  /** Name shown in reports. */
  readonly name: string;
  /** Prepares a runner for this turn shape; everything inside the returned function is measured. */
  prepare(turn: BenchTurn): () => Promise<string>;
  /**
   * Prepares a runner (clients only) for a composed turn; the returned function is measured and
   * does everything a user's turn does: defines the tools from `turn.specs()`, converts their
   * schemas and validates arguments as the runtime's docs show, and runs the turn.
   */
  composeTurn(turn: ComposedTurn): () => Promise<string>;
}
