import type { BrainLimits } from './brain/brain-limits';
import { resolveBrainLimits } from './brain/brain-limits';
import { ControlPlaneConfigError } from './errors/control-plane-config-error';
import type { ControlPlaneOptions } from './open-control-plane';
import { checkAgentId } from './schedules/agent-id';
import type { ScheduleLimits } from './schedules/schedule-service';
import type { TurnRequestOptions } from './turn-requests/turn-request-queue';
import { positive, whole } from './values/check-option';
import type { WorkTurnOptions } from './workflows/work-turn-queue';

/** `openControlPlane`'s options checked, with their defaults. */
export interface ControlPlaneSettings {
  agentId: string | undefined;
  schedules: Required<ScheduleLimits>;
  turnRequests: Required<TurnRequestOptions>;
  workTurns: Required<WorkTurnOptions>;
  workflows: { maxConcurrentTasks: number; maxPromptBytes: number };
  maxValueBytes: number;
  brain: BrainLimits;
  maintenanceIntervalSeconds: number;
  maxConnections: number;
  onError: (error: unknown) => void;
}

/** pg-boss refuses an expiry of 24 hours or more. */
const MAX_EXPIRE_SECONDS = 24 * 60 * 60 - 1;

function flag(field: string, value: boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new ControlPlaneConfigError({ field, message: `must be true or false, got ${String(value)}` });
  }
  return value;
}

/**
 * Checks `openControlPlane`'s options (all but the database's) and fills in their defaults.
 *
 * Contract: throws `ControlPlaneConfigError` naming the option (`turnRequests.retryLimit`, ...) for a
 * value out of range, `ControlPlaneInputError` for a bad `agentId`.
 */
export function resolveControlPlaneSettings(options: ControlPlaneOptions): ControlPlaneSettings {
  return {
    agentId: options.agentId === undefined ? undefined : checkAgentId(options.agentId, 'agentId'),
    schedules: {
      minimumIntervalSeconds: positive(
        'schedules.minimumIntervalSeconds',
        options.schedules?.minimumIntervalSeconds,
        300,
      ),
      maxSchedulesPerAgent: positive(
        'schedules.maxSchedulesPerAgent',
        options.schedules?.maxSchedulesPerAgent,
        25,
      ),
      maxPromptBytes: positive('schedules.maxPromptBytes', options.schedules?.maxPromptBytes, 16 * 1024),
    },
    turnRequests: {
      expireInSeconds: whole(
        'turnRequests.expireInSeconds',
        options.turnRequests?.expireInSeconds,
        900,
        1,
        MAX_EXPIRE_SECONDS,
      ),
      retryLimit: whole('turnRequests.retryLimit', options.turnRequests?.retryLimit, 3, 0),
      retryDelaySeconds: whole(
        'turnRequests.retryDelaySeconds',
        options.turnRequests?.retryDelaySeconds,
        10,
        0,
      ),
      retryBackoff: flag('turnRequests.retryBackoff', options.turnRequests?.retryBackoff, false),
      pollingIntervalSeconds: positive(
        'turnRequests.pollingIntervalSeconds',
        options.turnRequests?.pollingIntervalSeconds,
        2,
        0.5,
      ),
    },
    workTurns: {
      expireInSeconds: whole(
        'workTurns.expireInSeconds',
        options.workTurns?.expireInSeconds,
        900,
        1,
        MAX_EXPIRE_SECONDS,
      ),
      retryLimit: whole('workTurns.retryLimit', options.workTurns?.retryLimit, 2, 0),
      retryDelaySeconds: whole('workTurns.retryDelaySeconds', options.workTurns?.retryDelaySeconds, 5, 0),
      retryBackoff: flag('workTurns.retryBackoff', options.workTurns?.retryBackoff, false),
      pollingIntervalSeconds: positive(
        'workTurns.pollingIntervalSeconds',
        options.workTurns?.pollingIntervalSeconds,
        2,
        0.5,
      ),
      cancelCheckIntervalMs: positive(
        'workTurns.cancelCheckIntervalMs',
        options.workTurns?.cancelCheckIntervalMs,
        1000,
        10,
      ),
    },
    workflows: {
      maxConcurrentTasks: positive('workflows.maxConcurrentTasks', options.workflows?.maxConcurrentTasks, 4),
      maxPromptBytes: positive('workflows.maxPromptBytes', options.workflows?.maxPromptBytes, 64 * 1024),
    },
    maxValueBytes: positive('maxValueBytes', options.maxValueBytes, 1024 * 1024),
    brain: resolveBrainLimits(options.brain),
    maintenanceIntervalSeconds: positive(
      'maintenanceIntervalSeconds',
      options.maintenanceIntervalSeconds,
      30,
    ),
    maxConnections: whole('maxConnections', options.maxConnections, 10),
    onError: options.onError ?? (() => {}),
  };
}
