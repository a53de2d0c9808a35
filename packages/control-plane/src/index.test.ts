import { describePublicApi } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import * as publicApi from './index';
import * as testingApi from './testing';

// The services and stores are exported as types only: `openControlPlane` builds them, their
// constructors are internal.
describePublicApi('@switchyard/control-plane', publicApi, [
  'AGENT_ID_PATTERN',
  'APPROVAL_INLINE_ARGUMENT_BYTES',
  'APPROVAL_MAX_ARGUMENT_BYTES',
  'APPROVAL_PREVIEW_BYTES',
  'ControlPlaneConfigError',
  'ControlPlaneInputError',
  'IDEMPOTENCY_KEY_LIFETIME_MS',
  'MAX_IDEMPOTENCY_KEY_LENGTH',
  'checkResultSchema',
  'checkWorkflowSpec',
  'openControlPlane',
  'validateResult',
]);

describe('public API of @switchyard/control-plane/testing', () => {
  it('keeps raw SQL in the unstable testing entry only', () => {
    expect(Object.keys(testingApi).sort()).toEqual(['queryControlPlane']);
    expect(() => testingApi.queryControlPlane({}, 'SELECT 1')).toThrow(/not a control plane/);
  });
});
