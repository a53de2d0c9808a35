// Any export added here is public API: keep it named, documented and deliberate.
// This entry must not import a test runner (the worker's demo runs it in production): the
// vitest-based conformance suite is `@switchyard/testkit/conformance` (src/conformance/index.ts).

export { createTestToolContext, type TestToolContext } from './create-test-tool-context';
export type {
  FakeFunctionCall,
  FakeHTTPError,
  FakeRequest,
  FakeRequestBody,
  FakeResponse,
  FakeResponsesServerOptions,
  FakeScriptStep,
} from './fake-server/fake-script';
export {
  type FakeResponsesServer,
  startFakeResponsesServer,
} from './fake-server/start-fake-responses-server';
export { toolCallStep } from './fake-server/tool-call-step';
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
