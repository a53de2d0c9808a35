// `@switchyard/fake-responses-server`: private, used from source. Core's loop tests and the testkit
// both use it; the testkit re-exports these names and bundles this package into its build, so what
// is public about it is the testkit's entry (pinned there).

export type {
  FakeFunctionCall,
  FakeHTTPError,
  FakeRequest,
  FakeRequestBody,
  FakeResponse,
  FakeResponsesServerOptions,
  FakeScriptStep,
} from './fake-script';
export { type FakeResponsesServer, startFakeResponsesServer } from './start-fake-responses-server';
export { toolCallStep } from './tool-call-step';
