import { context, propagation } from '@opentelemetry/api';
import type { ControlPlane } from '@switchyard/control-plane';

/** The active span's W3C `traceparent` (through the installed propagator), when there is one. */
export function activeTraceParent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * The running call's trace context as MCP `_meta` entries (`traceparent`, `tracestate`): what
 * `connectMcpServers({ callMeta })` adds to every `tools/call`.
 */
export function traceMeta(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/**
 * `web_fetch`'s options with `requestHeaders` giving the running call's `traceparent`: a fetch carries
 * the trace out. `false`/`null`/absent (the tool off) stays as it is; `true` becomes the defaults.
 */
export function withTraceHeaders<T extends object>(
  fetch: T | boolean | null | undefined,
): T | object | boolean | null | undefined {
  if (fetch === undefined || fetch === null || fetch === false) return fetch;
  const base = fetch === true ? {} : fetch;
  return {
    ...base,
    requestHeaders: () => {
      const traceParent = activeTraceParent();
      return traceParent === undefined ? undefined : { traceparent: traceParent };
    },
  };
}

/**
 * The control plane's workflow and job services, each start stamped with the active span's
 * `traceparent` (the `execute_tool` span of the call that starts the work): the task and job turns,
 * in whichever process picks them up, continue that trace. Without an SDK there is no propagator,
 * nothing is stamped, and the services behave as before. With `parentTurnId` (the daemon's turn
 * whose tools these are), each start also records that turn as the work's parent, which the task
 * and job turns' `origin` then names.
 */
export function tracedWorkServices(
  controlPlane: Pick<ControlPlane, 'workflows' | 'backgroundJobs'>,
  options: { parentTurnId?: string } = {},
): {
  workflows: ControlPlane['workflows'];
  backgroundJobs: ControlPlane['backgroundJobs'];
} {
  const { workflows, backgroundJobs } = controlPlane;
  const { parentTurnId } = options;
  const stamp = <T extends { traceParent?: string; parentTurnId?: string }>(request: T): T => {
    const parented =
      parentTurnId === undefined || request.parentTurnId !== undefined
        ? request
        : { ...request, parentTurnId };
    if (parented.traceParent !== undefined) return parented;
    const traceParent = activeTraceParent();
    return traceParent === undefined ? parented : { ...parented, traceParent };
  };
  // Each method is bound: the services keep private fields, which a wrapper object cannot reach.
  return {
    workflows: {
      startWorkflow: (request) => workflows.startWorkflow(stamp(request)),
      showWorkflow: (request) => workflows.showWorkflow(request),
      listWorkflows: (request) => workflows.listWorkflows(request),
      cancelWorkflow: (request) => workflows.cancelWorkflow(request),
    } as ControlPlane['workflows'],
    backgroundJobs: {
      startBackgroundJob: (request) => backgroundJobs.startBackgroundJob(stamp(request)),
      checkBackgroundJob: (request) => backgroundJobs.checkBackgroundJob(request),
      cancelBackgroundJob: (request) => backgroundJobs.cancelBackgroundJob(request),
    } as ControlPlane['backgroundJobs'],
  };
}
