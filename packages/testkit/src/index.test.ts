import { describe, expect, it } from 'vitest';
import * as conformanceApi from './conformance/index';
import * as publicApi from './index';

// Removing a name here is a breaking change (a `minor` changeset while 0.x). The main entry must
// stay free of test runners; the vitest-based suite is `@switchyard/testkit/conformance`.
describe('public API', () => {
  it('exports exactly the documented runtime names from the runtime-free entry', () => {
    expect(Object.keys(publicApi).sort()).toEqual([
      'STALL_BOUNDS',
      'createTestToolContext',
      'measureEventLoop',
      'runToolCall',
      'startFakeResponsesServer',
    ]);
  });

  it('exports the conformance suite from its own entry', () => {
    expect(Object.keys(conformanceApi).sort()).toEqual(['describeToolCategory']);
  });
});
