// Any export added here is public API: keep it named, documented and deliberate.
// It holds what a tool category's author and a worker use: the tool contract, its errors and result
// types, the agent loop with its options and events, the Responses model and the schema collection.
// Helpers Switchyard's own packages share are in `./internal` (`@switchyard/core/internal`), which is
// not public API.

export { type ConfigErrorOptions, SwitchyardConfigError } from './errors/config-error';
export { ModelRequestError } from './errors/model-request-error';
export { SwitchyardError } from './errors/switchyard-error';
export { type ToolArgumentIssue, ToolArgumentsError } from './errors/tool-arguments-error';
export { ToolDefinitionError } from './errors/tool-definition-error';
export {
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
export type { TurnBudget } from './loop/turn-budget';
export type { RecordedTurn, TurnJournal } from './loop/turn-journal';
export { DEFAULT_MAX_RESPONSE_BYTES } from './model/response-shape';
export {
  createResponsesModel,
  type ResponsesModel,
  type ResponsesModelOptions,
} from './model/responses-model';
export {
  type CollectToolSchemasOptions,
  collectToolSchemas,
  type ResponsesToolSchema,
  type ToolSchemaEntry,
  type ToolSchemaManifest,
  type ToolSearchMode,
} from './schema/collect-tool-schemas';
export { createUntrustedMarker, type UntrustedMarker } from './shared/untrusted-marker';
export type { AgentTelemetryOptions } from './telemetry/turn-telemetry';
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
  ToolPresentationEvent,
  ToolProgress,
  ToolResultContentPart,
  WorkerAgentTool,
  ZodWorkerAgentTool,
} from './tool/worker-agent-tool';
