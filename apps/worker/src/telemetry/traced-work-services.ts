import { context, propagation } from '@opentelemetry/api';
import type { ControlPlane } from '@switchyard/control-plane';

/** The active span's W3C `traceparent` (through the installed propagator), when there is one. */
export function activeTraceParent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * The control plane's workflow and job services, each start stamped with the active span's
 * `traceparent` (the `execute_tool` span of the call that starts the work): the task and job turns,
 * in whichever process picks them up, continue that trace. Without an SDK there is no propagator,
 * nothing is stamped, and the services behave as before.
 */
export function tracedWorkServices(controlPlane: Pick<ControlPlane, 'workflows' | 'backgroundJobs'>): {
  workflows: ControlPlane['workflows'];
  backgroundJobs: ControlPlane['backgroundJobs'];
} {
  const { workflows, backgroundJobs } = controlPlane;
  const stamp = <T extends { traceParent?: string }>(request: T): T => {
    if (request.traceParent !== undefined) return request;
    const traceParent = activeTraceParent();
    return traceParent === undefined ? request : { ...request, traceParent };
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
