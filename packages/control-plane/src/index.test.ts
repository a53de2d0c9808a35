import { describe, expect, it } from 'vitest';
import * as publicApi from './index';
import * as testingApi from './testing';

// Removing a name here is a breaking change (a `minor` changeset while 0.x). The services and
// stores are exported as types only: `openControlPlane` builds them, their constructors are internal.
describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(publicApi).sort()).toEqual([
      'AGENT_ID_PATTERN',
      'ControlPlaneConfigError',
      'ControlPlaneInputError',
      'checkResultSchema',
      'checkWorkflowSpec',
      'openControlPlane',
      'validateResult',
    ]);
  });

  it('keeps raw SQL in the unstable testing entry only', () => {
    expect(Object.keys(testingApi).sort()).toEqual(['queryControlPlane']);
    expect(() => testingApi.queryControlPlane({}, 'SELECT 1')).toThrow(/not a control plane/);
  });
});
