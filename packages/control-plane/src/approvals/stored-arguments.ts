import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredJson } from '../values/check-stored-value';

/** A held turn's checkpoint carries its transcript: larger than any single stored value. */
export const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;
/**
 * The largest arguments a call may be held with, stored whole: what an operator allows is exactly
 * what runs, so nothing larger is held (the caller denies it instead). As large as a checkpoint, which
 * carries them too.
 */
export const APPROVAL_MAX_ARGUMENT_BYTES = MAX_CHECKPOINT_BYTES;
/** Arguments up to this size come whole in lists; larger ones come as a head and a tail. */
export const APPROVAL_INLINE_ARGUMENT_BYTES = 64 * 1024;
/** The size of the head and of the tail a list shows of larger arguments. */
export const APPROVAL_PREVIEW_BYTES = 4 * 1024;

/** The first `bytes` of `text` in UTF-8, cut before a character rather than inside one. */
function headOf(text: string, bytes: number): string {
  const head = Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8');
  // A cut inside a character decodes to U+FFFD at the end: drop it.
  return head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
}

/** The last `bytes` of `text` in UTF-8, cut after a character rather than inside one. */
function tailOf(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  const tail = encoded.subarray(Math.max(0, encoded.length - bytes)).toString('utf8');
  return tail.startsWith('\uFFFD') && !text.endsWith(tail) ? tail.replace(/^\uFFFD+/, '') : tail;
}

/** A held call's arguments as stored: whole, with their size, and a head and tail when large. */
export interface StoredArguments {
  /** The arguments as JSON text. */
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** The first `APPROVAL_PREVIEW_BYTES` of `text`, when it is over `APPROVAL_INLINE_ARGUMENT_BYTES`. */
  head: string | null;
  /** The last `APPROVAL_PREVIEW_BYTES` of `text`, when it is over `APPROVAL_INLINE_ARGUMENT_BYTES`. */
  tail: string | null;
}

/**
 * A held call's arguments as stored.
 *
 * Contract: throws `ControlPlaneInputError` on `arguments` when they are not finite JSON of at most
 * `APPROVAL_MAX_ARGUMENT_BYTES`: what cannot be stored whole is refused, never kept as a preview.
 */
export function storableArguments(value: unknown): StoredArguments {
  const checked = checkStoredJson(value, { maxBytes: APPROVAL_MAX_ARGUMENT_BYTES });
  if (!checked.ok) {
    throw new ControlPlaneInputError(
      'arguments',
      `cannot be stored whole for an operator to see, so the call cannot be held: ${checked.reason}`,
    );
  }
  const bytes = Buffer.byteLength(checked.text, 'utf8');
  if (bytes <= APPROVAL_INLINE_ARGUMENT_BYTES) return { text: checked.text, bytes, head: null, tail: null };
  return {
    text: checked.text,
    bytes,
    head: headOf(checked.text, APPROVAL_PREVIEW_BYTES),
    tail: tailOf(checked.text, APPROVAL_PREVIEW_BYTES),
  };
}

/**
 * A held turn's checkpoint as stored JSON text.
 *
 * Contract: throws `ControlPlaneInputError` on `checkpoint` when it is not finite JSON of at most 16 MiB.
 */
export function checkCheckpoint(value: unknown): string {
  const checkpoint = checkStoredJson(value, { maxBytes: MAX_CHECKPOINT_BYTES });
  if (!checkpoint.ok) throw new ControlPlaneInputError('checkpoint', checkpoint.reason);
  return checkpoint.text;
}
