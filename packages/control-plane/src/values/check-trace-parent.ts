import { ControlPlaneInputError } from '../errors/control-plane-input-error';

// W3C Trace Context level 1, version 00: fixed-length lowercase hex fields, so a plain anchored
// pattern with no repetition of groups checks it in linear time.
const TRACE_PARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * A W3C `traceparent` to store with work (`00-<trace id>-<parent id>-<flags>`), or `null` when none
 * was given.
 *
 * Contract: throws `ControlPlaneInputError` naming `traceParent` for anything else (another version,
 * upper case, all-zero ids), so nothing invalid is stored.
 */
export function checkTraceParent(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !TRACE_PARENT.test(value)) {
    throw new ControlPlaneInputError(
      'traceParent',
      'expected a W3C traceparent: 00-<32 lowercase hex>-<16 lowercase hex>-<2 lowercase hex>',
    );
  }
  return value;
}
