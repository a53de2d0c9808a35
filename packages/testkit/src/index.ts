// Any export added here is public API: keep it named, documented and deliberate.

export { createTestToolContext, type TestToolContext } from './create-test-tool-context';
