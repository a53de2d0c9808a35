import type { z } from '@hono/zod-openapi';
import { SwitchyardError } from '@switchyard/core';
import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';

/**
 * An error the HTTP API answers as `{ error: { code, message, fields? } }` with `status` and
 * `headers`: a route or middleware throws it, `answerError` answers it.
 */
export class HttpError extends SwitchyardError {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The stable code clients branch on (`invalid_body`, `not_found`, ...). */
    readonly code: string,
    message: string,
    /** The request fields at fault (`tasks[0].id`, `Idempotency-Key`), for a 400. */
    readonly fields?: string[],
    /** Headers of the answer (`Retry-After`, `Allow`, ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.markAs('HttpError');
  }

  static override isInstance(value: unknown): value is HttpError {
    return SwitchyardError.hasMark(value, 'HttpError');
  }
}

/**
 * The 503 (`lock_lost`) of a daemon that lost the lock on its embedded database: it takes no new
 * `work` (`turns`, `work`), and its log says why.
 */
export const lockLostError = (work: string): HttpError =>
  new HttpError(
    503,
    'lock_lost',
    `the daemon lost the lock on its embedded database and takes no new ${work}: see its log`,
  );

/** `tasks[0].id` from a Zod issue path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let field = '';
  for (const part of path) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return field;
}

/**
 * A Zod failure of a request's `target` (`json`, `query`, `param`, ...) as the API's error: a 400
 * with every problem in the message and every field named, or a 404 for a path parameter.
 */
export function validationError(error: z.ZodError, target: string): HttpError {
  const problems: string[] = [];
  const fields: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = fieldOf([...issue.path, key]);
        fields.push(field);
        problems.push(`${field}: unknown field`);
      }
      continue;
    }
    const field = fieldOf(issue.path) || target;
    if (!fields.includes(field)) fields.push(field);
    problems.push(`${field}: ${issue.message}`);
  }
  if (target === 'param') return new HttpError(404, 'not_found', 'no such resource');
  return new HttpError(
    400,
    target === 'query' ? 'invalid_query' : 'invalid_body',
    problems.join('; '),
    fields,
  );
}

/** `value`, or the API's 404 saying there is no `noun` with that `id`. */
export function found<T>(value: T | undefined, noun: string, id: string): T {
  if (value === undefined) throw new HttpError(404, 'not_found', `no ${noun} '${id}'`);
  return value;
}

/** What a thrown value is to the client: itself for an `HttpError`, the framework's own failures as ours. */
function failureOf(error: unknown): HttpError {
  if (HttpError.isInstance(error)) return error;
  if (error instanceof HTTPException && /malformed json/i.test(error.message)) {
    return new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (error instanceof HTTPException && error.status === 415) {
    return new HttpError(
      415,
      'unsupported_media_type',
      'the request body must be JSON, sent with Content-Type: application/json',
    );
  }
  return new HttpError(500, 'internal_error', 'internal error');
}

/**
 * The API's error handler (`app.onError`): every failure as `{ error: { code, message, fields? } }`,
 * never cached.
 *
 * Contract: an `HttpError` is answered as it says; the framework's malformed JSON is a 400
 * `invalid_json`, its unsupported media type a 415; anything else is a 500 `internal_error` whose
 * cause goes to `log`, not to the client. A 413 or 415 closes the connection: a refused upload is
 * not read to its end.
 */
export function answerError(log?: (line: string) => void): ErrorHandler {
  return (error: Error, c: Context) => {
    const failure = failureOf(error);
    if (failure.status === 500) {
      log?.(`switchyard serve: internal error in ${c.req.method} ${c.req.path}: ${String(error)}`);
    }
    return c.json(
      {
        error: {
          code: failure.code,
          message: failure.message,
          ...(failure.fields === undefined ? {} : { fields: failure.fields }),
        },
      },
      failure.status as 400,
      {
        'cache-control': 'no-store',
        ...failure.headers,
        ...(failure.status === 413 || failure.status === 415 ? { connection: 'close' } : {}),
      },
    );
  };
}
