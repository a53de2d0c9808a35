import { describePublicApi } from '@switchyard/test-support';
import * as conformanceApi from './conformance/index';
import * as publicApi from './index';

// The main entry must stay free of test runners; the vitest-based suite is its own entry.
describePublicApi('@switchyard/testkit', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: [
    'STALL_BOUNDS',
    'callTool',
    'createTestToolContext',
    'measureEventLoop',
    'runToolCall',
    'startFakeResponsesServer',
    'toolCallStep',
  ],
  types: [
    'EventLoopMeasurement',
    'FakeFunctionCall',
    'FakeHTTPError',
    'FakeRequest',
    'FakeRequestBody',
    'FakeResponse',
    'FakeResponsesServer',
    'FakeResponsesServerOptions',
    'FakeScriptStep',
    'RunToolCallOptions',
    'RunToolCallResult',
    'TestToolContext',
  ],
});
describePublicApi('@switchyard/testkit/conformance', {
  source: new URL('./conformance/index.ts', import.meta.url),
  module: conformanceApi,
  runtime: ['describeToolCategory'],
  types: ['DescribeToolCategoryOptions'],
});
