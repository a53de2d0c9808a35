// The testkit's fake Responses server, taken from its source: core's tests run the loop through the
// real openai SDK against it. A dependency on the testkit package would make the build graph cyclic
// (the testkit depends on core); its fake server imports nothing but `node:`, so its source runs here
// as it is.
export type {
  FakeFunctionCall,
  FakeRequest,
  FakeResponse,
  FakeScriptStep,
} from '../../../../testkit/src/fake-server/fake-script';
export {
  type FakeResponsesServer,
  startFakeResponsesServer,
} from '../../../../testkit/src/fake-server/start-fake-responses-server';
