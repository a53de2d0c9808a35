import { ControlPlaneInputError } from '../errors/control-plane-input-error';

/** Agent ids name queues and scope every query: letters, digits, `_`, `.` and `-`, 1 to 64 characters. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Checks an agent id.
 *
 * Contract: throws `ControlPlaneInputError` on `field` when it does not match `AGENT_ID_PATTERN`.
 */
export function checkAgentId(value: unknown, field = 'agentId'): string {
  if (typeof value !== 'string' || !AGENT_ID_PATTERN.test(value)) {
    throw new ControlPlaneInputError(
      field,
      `must match ${AGENT_ID_PATTERN} (letters, digits, '_', '.' and '-'), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
