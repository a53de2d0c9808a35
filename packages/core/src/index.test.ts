import { describe, expect, it } from 'vitest';
import * as publicApi from './index';

// Removing a name here is a breaking change (a `minor` changeset while 0.x); adding one is a
// deliberate widening of what core must keep stable.
describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(publicApi).sort()).toEqual([
      'AGENT_EVENT_TYPES',
      'ARGUMENT_REFUSAL_REASONS',
      'ARGUMENT_REPAIRS',
      'DEFAULT_MAX_TOOL_RESULT_BYTES',
      'MAX_TOOL_ARGUMENT_BYTES',
      'MAX_TOOL_ARGUMENT_DEPTH',
      'ModelRequestError',
      'SwitchyardConfigError',
      'SwitchyardError',
      'TELEMETRY_ATTRIBUTES',
      'TELEMETRY_METRICS',
      'TELEMETRY_SCOPE_NAME',
      'TOOL_CALL_OUTCOMES',
      'TOOL_NAME_PATTERN',
      'ToolArgumentsError',
      'ToolDefinitionError',
      'ZERO_USAGE',
      'addUsage',
      'agentToolMap',
      'capToolResult',
      'collectToolSchemas',
      'createResponsesModel',
      'createToolSearchIndex',
      'defineWorkerTool',
      'escapePointerSegment',
      'isJsSpace',
      'isOpenAIEndpoint',
      'isPlainObject',
      'issueFromAjvError',
      'raceAbort',
      'resolveToolParameters',
      'runAgentLoop',
      'runToolCallOnce',
      'toJSONPointer',
      'toStrictJSONSchema',
      'toolKey',
      'validateToolArguments',
      'zodToJSONSchema',
    ]);
  });
});
