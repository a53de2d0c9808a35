import type { ApiContext } from '../api-context';
import { HttpError } from '../http-error';
import {
  authenticatedRoute,
  createResourceApp,
  errorResponse,
  jsonResponse,
  NO_STORE,
} from '../route-builders';
import { refuseOtherMethods } from '../route-registrars';
import { AgentParamSchema, AgentUsageSchema } from './usage-schemas';

/**
 * The agents' sub-app: `GET /v1/agents/{agent}/usage`, what an agent spent and runs now against each
 * of its budgets, read from the control plane (so the whole fleet's spend, not this process's).
 */
export function createAgentsApp(context: ApiContext) {
  const { options } = context;
  const app = createResourceApp();
  app.openapi(
    authenticatedRoute(
      'get',
      {
        operationId: 'getAgentUsage',
        path: '/v1/agents/{agent}/usage',
        summary: 'What an agent spent and runs now, against each of its budgets',
        description:
          'Tokens in the last 24 hours, turns running at once and waiting for a slot, and schedules, schedule fires, workflows and background jobs started in the last hour, each with its limit (budgets, agents.<name>.budgets). Counted in the database: every process on it is included.',
      },
      { params: AgentParamSchema },
      {
        200: jsonResponse('The agent’s usage', AgentUsageSchema),
        404: errorResponse('Not an agent this daemon serves'),
        501: errorResponse('This daemon was started without budgets'),
      },
    ),
    async (c) => {
      const { agent } = c.req.valid('param');
      if (!options.agents.includes(agent))
        throw new HttpError(404, 'not_found', `no agent '${agent}' served here`);
      if (options.budgets === undefined) {
        throw new HttpError(501, 'not_available', 'this daemon was started without budgets');
      }
      const limits = options.budgets(agent);
      const usage = await options.controlPlane.budgets.usage(agent);
      const spend = (used: number, limit: number) => ({ used, limit });
      return c.json(
        {
          agent,
          now: usage.now,
          tokensLastDay: spend(usage.tokensLastDay, limits.tokensPerDay),
          tokensPerTurn: limits.tokensPerTurn,
          turnsAtOnce: spend(usage.runningTurns, limits.turnsAtOnce),
          turnsWaiting: usage.waitingTurns,
          startedLastHour: {
            schedules: spend(usage.startedLastHour.schedule, limits.schedulesPerHour),
            scheduleFires: spend(usage.startedLastHour['schedule-fire'], limits.scheduleFiresPerHour),
            workflows: spend(usage.startedLastHour.workflow, limits.workflowsPerHour),
            backgroundJobs: spend(usage.startedLastHour['background-job'], limits.backgroundJobsPerHour),
          },
        },
        200,
        NO_STORE,
      );
    },
  );
  refuseOtherMethods(app, [['/v1/agents/:agent/usage', ['GET']]]);
  return app;
}
