// Any export added here is public API: keep it named, documented and deliberate.

export {
  type DescribeToolCategoryOptions,
  describeToolCategory,
} from './conformance/describe-tool-category';
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
export { type RunToolCallOptions, type RunToolCallResult, runToolCall } from './run-tool-call';
