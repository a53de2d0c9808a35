// Any export added here is public API: keep it named, documented and deliberate.
// This entry must not import a test runner (the worker's demo runs it in production): the
// vitest-based conformance suite is `@switchyard/testkit/conformance` (src/conformance/index.ts).

export {
  type FakeFunctionCall,
  type FakeHTTPError,
  type FakeRequest,
  type FakeRequestBody,
  type FakeResponse,
  type FakeResponsesServer,
  type FakeResponsesServerOptions,
  type FakeScriptStep,
  startFakeResponsesServer,
  toolCallStep,
} from '@switchyard/fake-responses-server';
export { createTestToolContext, type TestToolContext } from './create-test-tool-context';
export {
  type EventLoopMeasurement,
  measureEventLoop,
  STALL_BOUNDS,
} from './measure-event-loop';
export {
  callTool,
  type RunToolCallOptions,
  type RunToolCallResult,
  runToolCall,
} from './run-tool-call';
