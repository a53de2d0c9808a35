import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, Next } from 'hono';
import { routePath } from 'hono/route';

/** The tracer name of the worker's own spans (API requests, `--trace`). */
export const WORKER_TRACER_NAME = '@switchyard/worker';

/**
 * Hono middleware: a SERVER span per API request whose parent is the request's `traceparent`
 * (W3C trace context, through the propagator the SDK installs), active while the request is handled,
 * so a turn the request starts is a child of it and joins the caller's trace.
 *
 * Contract: without an SDK the span is the API's no-op and the request is handled as before; the
 * span ends with the response, its status ERROR for a 5xx.
 */
export async function httpTraceMiddleware(c: Context, next: Next): Promise<void> {
  const carrier: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate', 'baggage']) {
    const value = c.req.header(name);
    if (value !== undefined) carrier[name] = value;
  }
  const parent = propagation.extract(context.active(), carrier);
  const method = c.req.method;
  const span = trace
    .getTracer(WORKER_TRACER_NAME)
    .startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': c.req.path } },
      parent,
    );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    if (span.isRecording()) {
      // The route template, not the path: ids in paths would make every span name unique.
      const route = routePath(c, -1);
      if (route !== '' && route !== '*') {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      const status = c.res.status;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end();
  }
}
