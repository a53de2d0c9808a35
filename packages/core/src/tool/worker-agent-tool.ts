import type { z } from 'zod';

/** A JSON Schema document as a plain object (what the model sees as a tool's `parameters`). */
export type JSONSchemaObject = { [key: string]: unknown };

/**
 * How a tool may be scheduled against the other calls of the same model response.
 * `parallel`: consecutive parallel calls run concurrently. `sequential`: waits for every call
 * before it and blocks every call after it.
 */
export type ToolExecutionMode = 'parallel' | 'sequential';

/** A text part of a tool result. */
export interface ToolResultTextPart {
  /** Discriminator. */
  type: 'text';
  /** The text the model reads. */
  text: string;
}

/** An image part of a tool result, sent to the model as an `input_image`. */
export interface ToolResultImagePart {
  /** Discriminator. */
  type: 'image';
  /** Base64-encoded image bytes. */
  data: string;
  /** The image's media type, e.g. `image/png`. */
  mimeType: string;
}

/** One part of a tool result's content. */
export type ToolResultContentPart = ToolResultTextPart | ToolResultImagePart;

/**
 * A presentation event: something a tool asks the worker to show the person following the turn (a
 * file preview, a link, a chart), beside the response. The design document's result contract has
 * "optional response presentation events"; the model never sees them.
 */
export interface ToolPresentationEvent {
  /** What kind of presentation this is (`file-preview`, `link`, ...); the host decides how to show each kind. */
  kind: string;
  /** The data to present; JSON, as it is recorded with the turn's events. */
  data?: unknown;
}

/** What a tool's `execute` returns. */
export interface AgentToolResult<TDetails = unknown> {
  /** What the model sees: a string, or text and image parts. */
  content: string | ToolResultContentPart[];
  /** Structured data for logs and activity reporting; never sent to the model. */
  details?: TDetails;
  /**
   * Presentation events for the person following the turn, never sent to the model.
   *
   * Contract: passed on unchanged in `tool-call-end`'s `result` (and so with the turn's recorded
   * events); the loop does nothing else with them.
   */
  presentation?: ToolPresentationEvent[];
  /**
   * This result completes the actor event the turn was started for (the design document's "optional
   * flag to complete the actor event"): the event a host started the turn to answer is answered.
   *
   * Contract: when a call completes without `isError`, `tool-call-end` carries
   * `completesActorEvent: true`; the loop goes on (ending the turn is `endsTurn`'s). Switchyard's own
   * worker starts turns from requests, schedules and workflow tasks, not actor events, and acts on
   * no such flag: it is there for a host that has them (see core's README).
   */
  completesActorEvent?: boolean;
  /** Stop the loop after the current batch of calls is recorded. */
  endsTurn?: boolean;
  /**
   * Keys (`toolKey`: `name` or `namespace.name`) of the turn's deferred tools to send from the next
   * request on: how a tool loads others (client-side Tool Search's `tool_search` uses it).
   *
   * Contract: applied only when the call completes, and only with client-side Tool Search (with
   * native search every deferred tool is already sent); keys naming no deferred tool of the turn are
   * ignored. A loaded tool stays loaded for the rest of the turn.
   */
  loadsTools?: readonly string[];
  /** The call failed; the content says why, so the model can act on it. */
  isError?: boolean;
}

/** Progress a running tool reports (shown next to its activity label). */
export interface ToolProgress {
  /** A short human-readable status line. */
  message?: string;
  /** Units of work done so far. */
  completed?: number;
  /** Units of work in all, when known. */
  total?: number;
}

/** What `execute` receives besides its validated parameters. */
export interface ToolExecutionContext {
  /** Fires when the turn is aborted or the tool's timeout elapses; stop work promptly. */
  signal: AbortSignal;
  /** The id of the function call being executed. */
  toolCallId: string;
  /**
   * A key for this call that stays the same when a resumed turn runs it again (the turn's id and the
   * call's place in it): pass it as the idempotency key of an external API the tool calls, so that a
   * call run twice (its worker stopped before its output was recorded) takes effect once.
   */
  idempotencyKey: string;
  /** Report progress on long work. Never throws. */
  reportProgress: (progress: ToolProgress) => void;
  /**
   * The most UTF-8 bytes of text the model will see of this call's result (the loop's
   * `maxToolResultBytes`); longer text is cut from the middle. A tool that pages its output can
   * fit each page within it. Absent when the caller sets no limit.
   */
  maxResultBytes?: number;
}

/** What every tool has, however its arguments are validated. */
interface WorkerAgentToolBase<TParams, TDetails> {
  /** What the model sees and calls: `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** What the tool does; the model reads it to decide whether to call it. */
  readonly description: string;
  /**
   * Ask the provider to enforce the schema in strict mode. Unset: strict when the Zod schema allows
   * it; an external `jsonSchema` is then sent unchanged. `'auto'`: an external `jsonSchema` is
   * projected to strict mode when it can be (else sent unchanged with the reason).
   */
  readonly strict?: boolean | 'auto';
  /** Provider namespace grouping related external tools. */
  readonly namespace?: string;
  /** Description of the namespace, sent once for the group. */
  readonly namespaceDescription?: string;
  /** Keep the schema behind Tool Search until the model selects it. */
  readonly deferLoading?: boolean;
  /** How the call is scheduled against the other calls of the same response. */
  readonly executionMode: ToolExecutionMode;
  /** The tool only reads. */
  readonly isReadOnly: boolean;
  /** The tool may change or destroy state outside the turn (files, processes, remote systems). */
  readonly isDestructive: boolean;
  /**
   * Running it again with the same `context.idempotencyKey` has no further effect: a resumed turn
   * runs such a call again when an earlier attempt stopped before recording its output (a call of
   * any other tool that is not read-only is reported in doubt instead). Default false.
   */
  readonly idempotent?: boolean;
  /** A short label while the call runs, e.g. "Reading notes/todo.md". */
  describeActivity(params: TParams): string;
  /** A label that replaces the activity label when done, e.g. "Read 120 lines of notes/todo.md". */
  describeCompletedActivity?(params: TParams, result: AgentToolResult<TDetails>): string;
  /** The work. Receives validated parameters, never raw model output. */
  execute(params: TParams, context: ToolExecutionContext): Promise<AgentToolResult<TDetails>>;
}

/**
 * A tool whose arguments are validated by its Zod `schema`: `execute` receives the schema's output,
 * so Zod defaults and transforms apply. The model is sent the schema's JSON Schema conversion.
 */
export interface ZodWorkerAgentTool<TParams = unknown, TDetails = unknown>
  extends WorkerAgentToolBase<TParams, TDetails> {
  /** Zod object schema the arguments are validated against before `execute`. */
  readonly schema: z.ZodType<TParams>;
  /** Never set on a Zod tool. */
  readonly jsonSchema?: undefined;
}

/**
 * A tool whose arguments are validated by its external `jsonSchema` alone, with Ajv: `execute`
 * receives the parsed arguments object as it passed validation. No Zod runs, so there are no Zod
 * defaults or transforms; a JSON Schema `default` is not applied either.
 */
export interface JSONSchemaWorkerAgentTool<TParams = Record<string, unknown>, TDetails = unknown>
  extends WorkerAgentToolBase<TParams, TDetails> {
  /** A live external JSON Schema (object root) sent byte-for-byte unchanged and validated with Ajv. */
  readonly jsonSchema: JSONSchemaObject;
  /** Never set on a JSON-Schema tool: its `jsonSchema` is the only validation. */
  readonly schema?: undefined;
}

/**
 * A tool the model may call: what `defineWorkerTool` returns and what the loop dispatches to.
 * Build it with `defineWorkerTool`, which checks the definition and fills in defaults. Which
 * validation runs is in the type: a `ZodWorkerAgentTool` (`schema`) or a `JSONSchemaWorkerAgentTool`
 * (`jsonSchema`, Ajv only).
 */
export type WorkerAgentTool<TParams = unknown, TDetails = unknown> =
  | ZodWorkerAgentTool<TParams, TDetails>
  | JSONSchemaWorkerAgentTool<TParams, TDetails>;

/** A tool of any parameter type, as held in a tool set. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous tool array needs a bivariant parameter type
export type AnyWorkerAgentTool = WorkerAgentTool<any, any>;
