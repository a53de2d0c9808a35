// `@switchyard/core/internal`: not public API. Helpers Switchyard's own packages share with core (so
// each has one home) and the parts of core they build on: the per-call pipeline the testkit runs, the
// argument validation, the schema projection, JSON pointers, Ajv issue wording, the result cap, Tool
// Search's index. A tool category's author or a worker outside this repository should not import it:
// its names change with core's needs, in any minor release, without a deprecation. Adding a name here
// is still deliberate (the list is pinned by internal.test.ts), and one that authors or workers need
// belongs in `./index` instead.

export {
  ARGUMENT_REFUSAL_REASONS,
  ARGUMENT_REPAIRS,
  type ArgumentRefusalReason,
  type ArgumentRepair,
} from './arguments/argument-ids';
export {
  MAX_TOOL_ARGUMENT_BYTES,
  MAX_TOOL_ARGUMENT_DEPTH,
  MAX_TOOL_ARGUMENT_VALUES,
} from './arguments/argument-limits';
export { type AjvErrorLike, issueFromAjvError } from './arguments/issue-from-ajv-error';
export { escapePointerSegment, toJSONPointer } from './arguments/json-pointer';
export {
  type PrecompileJSONSchemasOptions,
  type PrecompileOutcome,
  type PrecompileRefusal,
  precompileJSONSchemas,
} from './arguments/precompile-json-schemas';
export {
  type ValidateToolArgumentsOptions,
  type ValidateToolArgumentsResult,
  validateToolArguments,
} from './arguments/validate-tool-arguments';
export { addUsage, ZERO_USAGE } from './events/add-usage';
export { AGENT_EVENT_TYPES } from './events/agent-event';
export {
  type CappedToolResult,
  type CapToolResultOptions,
  capToolResult,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES,
  type ToolResultCut,
} from './loop/cap-tool-result';
export {
  type RunToolCallOnceOptions,
  runToolCallOnce,
  type ToolCallOnceResult,
} from './loop/run-tool-call-once';
export type { JournalCallOutput, JournalCallStart, JournalResponse } from './loop/turn-journal';
export { isOpenAIEndpoint } from './model/is-openai-endpoint';
export type {
  ModelRequest,
  ModelResponse,
  ResponsesChaining,
  ResponsesClient,
  ResponsesRequestDefaults,
} from './model/responses-model';
export type {
  FunctionToolSchema,
  NamespaceToolSchema,
  ToolSearchToolSchema,
} from './schema/collect-tool-schemas';
export { type StrictJSONSchemaResult, toStrictJSONSchema } from './schema/strict-json-schema';
export { resolveToolParameters, type ToolParameters } from './schema/tool-parameters';
export { zodToJSONSchema } from './schema/zod-to-json-schema';
export { isJsSpace } from './shared/is-js-space';
export { isPlainObject } from './shared/is-plain-object';
export { jsonTextNestsDeeperThan } from './shared/json-text-depth';
export { raceAbort } from './shared/race-abort';
export { tooDeepPath } from './shared/too-deep-path';
export {
  TELEMETRY_ATTRIBUTES,
  TELEMETRY_METRICS,
  TELEMETRY_SCOPE_NAME,
} from './telemetry/turn-telemetry';
export { agentToolMap, toolKey } from './tool/agent-tool-map';
export type {
  ToolResultImagePart,
  ToolResultTextPart,
} from './tool/worker-agent-tool';
export {
  createToolSearchIndex,
  type ToolSearchHit,
  type ToolSearchIndex,
} from './tool-search/client-tool-search';
