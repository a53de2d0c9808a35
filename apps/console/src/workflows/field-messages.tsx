import type { FieldErrors } from './field-errors';

function errorId(key: string): string {
  return `start-error-${key.replace(/\./g, '-')}`;
}

/** The props that tie an input to its messages: `aria-invalid` and `aria-describedby`. */
export function describedBy(errors: FieldErrors, key: string) {
  const messages = errors.byInput.get(key);
  return messages === undefined
    ? {}
    : { 'aria-invalid': true as const, 'aria-describedby': `${errorId(key)}` };
}

/** The messages of the input `field`, under it (nothing without one). */
export function FieldMessages({ errors, field }: { errors: FieldErrors; field: string }) {
  const messages = errors.byInput.get(field);
  return messages === undefined ? null : (
    <span id={errorId(field)} class="field-error error">
      {messages.join(' ')}
    </span>
  );
}
