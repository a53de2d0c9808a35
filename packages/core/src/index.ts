// Any export added here is public API: keep it named, documented and deliberate.

export {
  ARGUMENT_REFUSAL_REASONS,
  ARGUMENT_REPAIRS,
  type ArgumentRefusalReason,
  type ArgumentRepair,
} from './arguments/argument-ids';
export { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_ARGUMENT_DEPTH } from './arguments/argument-limits';
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
export { type ConfigErrorOptions, SwitchyardConfigError } from './errors/config-error';
export { ModelRequestError } from './errors/model-request-error';
export { SwitchyardError } from './errors/switchyard-error';
export { type ToolArgumentIssue, ToolArgumentsError } from './errors/tool-arguments-error';
export { ToolDefinitionError } from './errors/tool-definition-error';
export { addUsage, ZERO_USAGE } from './events/add-usage';
export {
  AGENT_EVENT_TYPES,
  type AgentEvent,
  type AgentRunStatus,
  type AgentUsage,
  type ModelRequestEndEvent,
  type ModelRequestStartEvent,
  type TextDeltaEvent,
  TOOL_CALL_OUTCOMES,
  type ToolCallEndEvent,
  type ToolCallOutcome,
  type ToolCallProgressEvent,
  type ToolCallStartEvent,
  type TurnEndEvent,
  type TurnStartEvent,
} from './events/agent-event';
export {
  type CappedToolResult,
  type CapToolResultOptions,
  capToolResult,
  DEFAULT_MAX_TOOL_RESULT_BYTES,
  DEFAULT_MAX_TOOL_RESULT_IMAGE_BYTES,
  type ToolResultCut,
} from './loop/cap-tool-result';
export type {
  BeforeToolCall,
  ToolCallDecision,
  ToolCallRequest,
} from './loop/execute-tool-call';
export {
  type AgentRun,
  type AgentRunResult,
  DEFAULT_MAX_PARALLEL_CALLS,
  type RunAgentLoopOptions,
  runAgentLoop,
} from './loop/run-agent-loop';
export {
  type RunToolCallOnceOptions,
  runToolCallOnce,
  type ToolCallOnceResult,
} from './loop/run-tool-call-once';
export { isOpenAIEndpoint } from './model/is-openai-endpoint';
export {
  createResponsesModel,
  type ModelRequest,
  type ModelResponse,
  type ResponsesChaining,
  type ResponsesClient,
  type ResponsesModel,
  type ResponsesModelOptions,
  type ResponsesRequestDefaults,
} from './model/responses-model';
export {
  type CollectToolSchemasOptions,
  collectToolSchemas,
  type FunctionToolSchema,
  type NamespaceToolSchema,
  type ResponsesToolSchema,
  type ToolSchemaEntry,
  type ToolSchemaManifest,
  type ToolSearchMode,
  type ToolSearchToolSchema,
} from './schema/collect-tool-schemas';
export { type StrictJSONSchemaResult, toStrictJSONSchema } from './schema/strict-json-schema';
export { resolveToolParameters, type ToolParameters } from './schema/tool-parameters';
export { zodToJSONSchema } from './schema/zod-to-json-schema';
export { isJsSpace } from './shared/is-js-space';
export { isPlainObject } from './shared/is-plain-object';
export { raceAbort } from './shared/race-abort';
export { createUntrustedMarker, type UntrustedMarker } from './shared/untrusted-marker';
export {
  type AgentTelemetryOptions,
  TELEMETRY_ATTRIBUTES,
  TELEMETRY_METRICS,
  TELEMETRY_SCOPE_NAME,
} from './telemetry/turn-telemetry';
export { agentToolMap, toolKey } from './tool/agent-tool-map';
export {
  defineWorkerTool,
  type JSONSchemaWorkerToolDefinition,
  TOOL_NAME_PATTERN,
  type WorkerToolDefinition,
  type ZodWorkerToolDefinition,
} from './tool/define-worker-tool';
export type {
  AgentToolResult,
  AnyWorkerAgentTool,
  JSONSchemaObject,
  JSONSchemaWorkerAgentTool,
  ToolExecutionContext,
  ToolExecutionMode,
  ToolProgress,
  ToolResultContentPart,
  ToolResultImagePart,
  ToolResultTextPart,
  WorkerAgentTool,
  ZodWorkerAgentTool,
} from './tool/worker-agent-tool';
export {
  createToolSearchIndex,
  type ToolSearchHit,
  type ToolSearchIndex,
} from './tool-search/client-tool-search';
