import { randomUUID } from 'node:crypto';
import type { z } from '@hono/zod-openapi';
import {
  type ControlPlane,
  ControlPlaneInputError,
  RateLimitedError,
  type StoredAnswer,
} from '@switchyard/control-plane';
import type { ApiContext } from '../api-context';
import { HttpError, lockLostError } from '../http-error';
import { type CreateRequest, registerStartRoute } from '../idempotent-answer';
import { createResourceApp, idRoute, jsonResponse, NO_STORE } from '../route-builders';
import { refuseOtherMethods, registerGetById, registerList } from '../route-registrars';
import { SHARED_ERRORS } from '../shared-error-responses';
import { WorkflowListSchema, WorkflowSchema, workflowRequestSchemas } from './workflow-schemas';

type WorkflowRecord = NonNullable<Awaited<ReturnType<ControlPlane['workflows']['showWorkflow']>>>;
type WorkflowRequest = z.output<ReturnType<typeof workflowRequestSchemas>['workflowRequest']>;

/** A workflow as the API shows it: its record and its agent. */
const workflowView = (agent: string, record: WorkflowRecord) => ({ ...record, agent });

/**
 * Stores and starts the workflow `body` asks for (under `workflowKey` when a key's claim chose it):
 * its 201, as sent and as kept for an Idempotency-Key; 400 for a spec the control plane refuses.
 */
async function startWorkflow(
  { options }: ApiContext,
  agent: string,
  body: WorkflowRequest,
  workflowKey: string | undefined,
): Promise<StoredAnswer> {
  let record: WorkflowRecord;
  try {
    record = await options.controlPlane.workflows.startWorkflow({
      agentId: agent,
      spec: {
        name: body.name,
        tasks: body.tasks.map((task) => ({
          id: task.id,
          prompt: task.prompt,
          resultSchema: task.resultSchema as never,
          ...(task.dependsOn === undefined ? {} : { dependsOn: task.dependsOn }),
        })),
      },
      ...(workflowKey === undefined ? {} : { idempotencyKey: workflowKey }),
    });
  } catch (error) {
    if (ControlPlaneInputError.isInstance(error)) {
      throw new HttpError(400, 'invalid_body', error.message, [error.field]);
    }
    if (RateLimitedError.isInstance(error)) {
      throw new HttpError(429, 'rate_limited', error.message, undefined, {
        'retry-after': String(error.retryAfterSeconds),
      });
    }
    throw error;
  }
  return {
    status: 201,
    headers: { location: `/v1/workflows/${record.id}` },
    body: JSON.stringify(workflowView(agent, record)),
  };
}

/** `POST /v1/workflows` in the document, with the body `requestSchema`. */
const startWorkflowRoute = (requestSchema: ReturnType<typeof workflowRequestSchemas>['workflowRequest']) => ({
  text: {
    operationId: 'startWorkflow',
    path: '/v1/workflows',
    summary: 'Start a workflow (checked as the workflow tool checks it)',
    description:
      'Tasks without dependsOn start at once, in parallel; each runs as a task turn and stores a result matching its resultSchema. Send an `Idempotency-Key` header to start one workflow however often the request is retried, from any process on the same database.',
  },
  body: requestSchema,
  started: {
    status: 201 as const,
    description: 'Stored and started; `Location` names it',
    schema: WorkflowSchema,
  },
  unavailable:
    'Over the bound of waiting work (serve.maxWaitingWork, with Retry-After), or the embedded database’s lock was lost: nothing is started',
  rateLimited:
    'The agent started its workflowsPerHour (budgets) in the last hour: nothing is started; `Retry-After` says when the hour has room',
});

/** `POST /v1/workflows`: store and start the workflow `body` asks for, once per key; 503 after the lock was lost. */
function workflowStart(context: ApiContext, body: WorkflowRequest): CreateRequest {
  const { options } = context;
  if (options.state() === 'lock-lost') throw lockLostError('work');
  const agent = body.agent ?? options.defaultAgent;
  return {
    agent,
    operation: 'start-workflow',
    newResourceId: () => `api-key:${randomUUID()}`,
    // The resource id is the key the workflow is stored under: a continued claim that starts it
    // again gets the workflow stored first (the workflows' unique idempotency key).
    create: (workflowKey) => startWorkflow(context, agent, body, workflowKey),
  };
}

/** The workflows' sub-app: start, list, read and cancel the workflows of the agents served. */
export function createWorkflowsApp(context: ApiContext) {
  const { controlPlane } = context.options;
  const schemas = workflowRequestSchemas(context.fields);
  const app = createResourceApp();

  /** A workflow of an agent this daemon serves, and that agent; 404 otherwise. */
  const findWorkflow = async (id: string): Promise<{ agent: string; record: WorkflowRecord }> => {
    for (const agent of context.options.agents) {
      const record = await controlPlane.workflows.showWorkflow({ agentId: agent, workflowId: id });
      if (record !== null) return { agent, record };
    }
    throw new HttpError(404, 'not_found', `no workflow '${id}'`);
  };

  registerStartRoute(app, context.options, startWorkflowRoute(schemas.workflowRequest), (body) =>
    workflowStart(context, body),
  );

  registerList(
    app,
    {
      operationId: 'listWorkflows',
      path: '/v1/workflows',
      summary: 'Recent workflows of the agents served, newest first (50 per agent)',
    },
    schemas.workflowsQuery,
    { description: 'Workflows', schema: WorkflowListSchema },
    async (query) => {
      const lists = await Promise.all(
        context.served(query.agent).map(async (agent) =>
          (await controlPlane.workflows.listWorkflows({ agentId: agent })).map((summary) => ({
            ...summary,
            agent,
          })),
        ),
      );
      const workflows = lists.flat().toSorted((a, b) => b.createdAt.localeCompare(a.createdAt));
      return { workflows };
    },
  );

  registerGetById(
    app,
    {
      operationId: 'getWorkflow',
      path: '/v1/workflows/{id}',
      summary: 'One workflow: its tasks, their statuses and stored results',
    },
    SHARED_ERRORS.noWorkflow.ref,
    { description: 'The workflow', schema: WorkflowSchema },
    async (id) => {
      const { agent, record } = await findWorkflow(id);
      return workflowView(agent, record);
    },
  );

  app.openapi(
    idRoute(
      'post',
      {
        operationId: 'cancelWorkflow',
        path: '/v1/workflows/{id}/cancel',
        summary: 'Cancel a workflow: pending and queued tasks never start, running ones are aborted',
      },
      SHARED_ERRORS.noWorkflow.ref,
      { 200: jsonResponse('The workflow (unchanged when it had ended)', WorkflowSchema) },
    ),
    async (c) => {
      const { agent } = await findWorkflow(c.req.valid('param').id);
      const record = await controlPlane.workflows.cancelWorkflow({
        agentId: agent,
        workflowId: c.req.valid('param').id,
      });
      if (record === null) throw new HttpError(404, 'not_found', 'no such workflow');
      return c.json(workflowView(agent, record), 200, NO_STORE);
    },
  );

  refuseOtherMethods(app, [
    ['/v1/workflows', ['GET', 'POST']],
    ['/v1/workflows/:id', ['GET']],
    ['/v1/workflows/:id/cancel', ['POST']],
  ]);
  return app;
}
