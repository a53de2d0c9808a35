import { issueFromAjvError } from '@switchyard/core/internal';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { checkStoredJson } from '../values/check-stored-value';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false });
// Keyed on the schema's JSON text: a task's stored schema is read back as a new object each time.
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 500;
const MAX_PROBLEMS = 20;

// Core's wording, so a model reads the same message for a bad tool argument and a bad result.
function describeError(error: ErrorObject): string {
  const issue = issueFromAjvError(error);
  return `${issue.path === '' ? '/' : issue.path}: ${issue.message}`;
}

/**
 * Validates a submitted result against a stored result schema (JSON Schema, Ajv), server side.
 * What is validated is the value as it would be stored: its JSON round trip. A value that cannot be
 * stored as it is (a non-finite number such as `1e999`, which JSON.stringify would quietly write as
 * null; a NUL character; something JSON cannot represent) is refused before the schema is consulted.
 *
 * Contract: returns the problems, one line per problem (`/path: what was expected`), at most 20 plus
 * a count of the rest; an empty list means the value is valid and stores as it is. Never throws for a
 * bad value.
 */
export function validateResult(schema: object, value: unknown): string[] {
  // Size limits are the caller's (it knows its maxValueBytes); this checks only what would change.
  const stored = checkStoredJson(value, { maxBytes: Number.POSITIVE_INFINITY });
  if (!stored.ok) return [`${stored.pointer ?? '/'}: ${stored.message}`];
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(key, validate);
  }
  if (validate(stored.value)) return [];
  // anyOf reports each branch's failure plus its own; the branch failures say more.
  const problems = [
    ...new Set((validate.errors ?? []).filter((error) => error.keyword !== 'anyOf').map(describeError)),
  ];
  if (problems.length === 0) problems.push('/: does not match the result schema');
  return problems.length > MAX_PROBLEMS
    ? [...problems.slice(0, MAX_PROBLEMS), `${problems.length - MAX_PROBLEMS} more problems not listed`]
    : problems;
}
