// Any export added here is public API: keep it named, documented and deliberate.
// `@switchyard/testkit/conformance`: the vitest-based conformance suite. It imports `vitest`, so it
// lives behind its own entry: the main entry (the fake server, `runToolCall`) stays free of test
// runners and can run in production code such as the worker's demo.

export {
  type DescribeToolCategoryOptions,
  describeToolCategory,
} from './describe-tool-category';
