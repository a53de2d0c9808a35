import { describePublicApi } from '@switchyard/test-support';
import * as conformanceApi from './conformance/index';
import * as publicApi from './index';

// The main entry must stay free of test runners; the vitest-based suite is its own entry.
describePublicApi('@switchyard/testkit', publicApi, [
  'STALL_BOUNDS',
  'callTool',
  'createTestToolContext',
  'measureEventLoop',
  'runToolCall',
  'startFakeResponsesServer',
  'toolCallStep',
]);
describePublicApi('@switchyard/testkit/conformance', conformanceApi, ['describeToolCategory']);
