import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText } from '../values/check-stored-value';
import type { ApprovalFileBefore } from './approval-record';

/** The most UTF-8 bytes of a file's text an approval keeps (`ApprovalFileBefore`'s `text`). */
export const FILE_BEFORE_MAX_TEXT_BYTES = 64 * 1024;

const STATES = new Set(['text', 'cut', 'binary', 'missing', 'unreadable']);

function checkBytes(value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new ControlPlaneInputError(
      'fileBefore.bytes',
      `must be a whole number of bytes, got ${String(value)}`,
    );
  }
  return value as number;
}

/**
 * `approvals.request`'s `fileBefore` as stored JSON text, or null when none was given.
 *
 * Contract: throws `ControlPlaneInputError` naming the field (`fileBefore`, `fileBefore.state`,
 * `.path`, `.text`, `.bytes`, `.reason`) for anything but the shapes of `ApprovalFileBefore`: a path
 * of at most 4,096 bytes, text of at most `FILE_BEFORE_MAX_TEXT_BYTES` with no NUL, a byte count that
 * is a whole number and, for `cut`, larger than its text's.
 */
export function checkFileBefore(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ControlPlaneInputError('fileBefore', 'must be an object');
  }
  const given = value as Record<string, unknown>;
  const state = given.state;
  if (typeof state !== 'string' || !STATES.has(state)) {
    throw new ControlPlaneInputError('fileBefore.state', 'must be text, cut, binary, missing or unreadable');
  }
  const path = checkStoredText('fileBefore.path', given.path, { maxBytes: 4096 });
  let checked: ApprovalFileBefore;
  if (state === 'text' || state === 'cut') {
    const text = checkStoredText('fileBefore.text', given.text, {
      maxBytes: FILE_BEFORE_MAX_TEXT_BYTES,
      allowEmpty: true,
    });
    const bytes = checkBytes(given.bytes);
    const textBytes = Buffer.byteLength(text);
    if (state === 'text' ? bytes !== textBytes : bytes <= textBytes) {
      throw new ControlPlaneInputError(
        'fileBefore.bytes',
        state === 'text'
          ? `must be the text's ${textBytes} bytes, got ${bytes}`
          : `must be more than the ${textBytes} bytes kept of a cut file, got ${bytes}`,
      );
    }
    checked = { path, state, text, bytes };
  } else if (state === 'binary') {
    checked = { path, state, bytes: checkBytes(given.bytes) };
  } else if (state === 'missing') {
    checked = { path, state };
  } else {
    checked = {
      path,
      state: 'unreadable',
      reason: checkStoredText('fileBefore.reason', given.reason, { maxBytes: 4096 }),
    };
  }
  return JSON.stringify(checked);
}
