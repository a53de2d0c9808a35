import type { ErrorObject } from 'ajv';
import type { ToolArgumentIssue } from '../errors/tool-arguments-error';
import { escapePointerSegment } from './json-pointer';

/** The parts of an Ajv `ErrorObject` a message needs (structural: any Ajv 8 copy fits). */
export type AjvErrorLike = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'>;

/**
 * Turns one Ajv error into a JSON-pointer issue the model (or an operator) can act on: a missing or
 * unexpected property is named in the path, its key escaped as a pointer segment (a key holding `/`
 * or `~` stays one segment), and the message says what was expected.
 *
 * Contract: never throws; the path is `''` for the root (callers choose how the root reads).
 */
export function issueFromAjvError(error: AjvErrorLike): ToolArgumentIssue {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: `${error.instancePath}/${escapePointerSegment(String(params.missingProperty))}`,
        message: 'missing: this property is required',
      };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const property = params.additionalProperty ?? params.unevaluatedProperty;
      return {
        path: `${error.instancePath}/${escapePointerSegment(String(property))}`,
        message: 'unexpected property: the schema does not allow it',
      };
    }
    case 'type':
      return { path: error.instancePath, message: `expected ${String(params.type)}` };
    case 'enum':
      return {
        path: error.instancePath,
        message: `expected one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`,
      };
    case 'const':
      return { path: error.instancePath, message: `expected ${JSON.stringify(params.allowedValue)}` };
    default:
      return {
        path: error.instancePath,
        message: `expected a value that ${error.message ?? `passes '${error.keyword}'`}`,
      };
  }
}
