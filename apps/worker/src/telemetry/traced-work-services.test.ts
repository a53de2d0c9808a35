// The worker's trace-context carriers, under a real propagator and context manager (what the Node
// SDK installs), with the SDK's tracer.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { ControlPlane } from '@switchyard/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTraceParent, tracedWorkServices, traceMeta, withTraceHeaders } from './traced-work-services';

const tracer = new BasicTracerProvider().getTracer('test');

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

afterAll(() => {
  context.disable();
  propagation.disable();
});

function inSpan<T>(run: (traceParent: string) => Promise<T>): Promise<T> {
  const span = tracer.startSpan('execute_tool workflow');
  const { traceId, spanId } = span.spanContext();
  return context.with(trace.setSpan(context.active(), span), () => run(`00-${traceId}-${spanId}-01`));
}

describe('trace context carried out of a tool call', () => {
  it('gives nothing outside a span', () => {
    expect(activeTraceParent()).toBeUndefined();
    expect(traceMeta()).toBeUndefined();
  });

  it("stamps workflow and job starts with the active span's traceparent, and keeps an explicit one", async () => {
    const seen: Array<{ traceParent?: string }> = [];
    const record = async (request: { traceParent?: string }) => {
      seen.push(request);
      return {} as never;
    };
    const services = tracedWorkServices({
      workflows: { startWorkflow: record } as unknown as ControlPlane['workflows'],
      backgroundJobs: { startBackgroundJob: record } as unknown as ControlPlane['backgroundJobs'],
    });
    const expected = await inSpan(async (traceParent) => {
      await services.workflows.startWorkflow({ agentId: 'a', spec: { name: 'w', tasks: [] } });
      await services.backgroundJobs.startBackgroundJob({ agentId: 'a', prompt: 'p' });
      await services.backgroundJobs.startBackgroundJob({ agentId: 'a', prompt: 'p', traceParent: 'kept' });
      return traceParent;
    });
    expect(seen.map((request) => request.traceParent)).toEqual([expected, expected, 'kept']);
    await services.backgroundJobs.startBackgroundJob({ agentId: 'a', prompt: 'outside' });
    expect(seen.at(-1)?.traceParent).toBeUndefined();
  });

  it('gives web_fetch a traceparent header and MCP calls _meta entries from the active span', async () => {
    const options = withTraceHeaders(true) as { requestHeaders: () => Record<string, string> | undefined };
    expect(withTraceHeaders(false)).toBe(false);
    expect(withTraceHeaders(undefined)).toBeUndefined();
    expect(options.requestHeaders()).toBeUndefined();
    await inSpan(async (traceParent) => {
      expect(options.requestHeaders()).toEqual({ traceparent: traceParent });
      expect(traceMeta()).toEqual({ traceparent: traceParent });
    });
    const kept = withTraceHeaders({ timeoutMs: 5 }) as { timeoutMs: number };
    expect(kept.timeoutMs).toBe(5);
  });
});
