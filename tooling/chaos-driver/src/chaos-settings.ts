/**
 * The queue expiry of a chaos run, s (`serve.expireSeconds`): a unit whose process died after its
 * queue delivered it and before the sweep of interrupted turns could hand it back (before its turn was
 * recorded, or after its turn ended and before the queue heard of the end) is delivered again once
 * the delivery expires and the queue's maintenance (every 30 s) sees it. Short, so that happens
 * within a run.
 */
export const CHAOS_QUEUE_EXPIRY_SECONDS = 40;

/** The turn time limit of a chaos run's processes, ms (`limits.turnTimeoutMs`): under the expiry. */
export const CHAOS_TURN_TIMEOUT_MS = 30_000;

/**
 * The delivery policy of both queues in a chaos run, as `openControlPlane` takes it: the processes'
 * (`serve.expireSeconds`, `retryLimit`, `retryDelaySeconds`, `retryBackoff`), and the driver's own
 * control plane's, which must be the same: a queue keeps the policy it was created with, and a job
 * the one of the queue it was stored in. A unit cut by kill after kill is retried at once and is not
 * out of attempts after a few: a run's units end by finishing (their final answers, which the
 * settling on PGlite waits for), not by running out of retries.
 */
export const CHAOS_QUEUE_POLICY = {
  turnRequests: {
    expireInSeconds: CHAOS_QUEUE_EXPIRY_SECONDS,
    retryLimit: 20,
    retryDelaySeconds: 1,
    retryBackoff: false,
  },
  workTurns: {
    expireInSeconds: CHAOS_QUEUE_EXPIRY_SECONDS,
    retryLimit: 20,
    retryDelaySeconds: 1,
    retryBackoff: false,
  },
} as const;

/** The delivery policy of a chaos run's queues (`CHAOS_QUEUE_POLICY`). */
export type ChaosQueuePolicy = typeof CHAOS_QUEUE_POLICY;
