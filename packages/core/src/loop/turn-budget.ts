import type { AgentUsage } from '../events/agent-event';

/**
 * What a turn may spend (`runAgentLoop`'s `budget`): the loop asks `beforeRequest` before each model
 * request it would send, with the turn's usage so far, and tells `afterResponse` the usage of each
 * response it received, before the response's calls run. A turn continued from its journal replays
 * recorded responses without a request: neither is called for those.
 *
 * Contract: a string from `beforeRequest` ends the turn `budget-exceeded` with that reason as its
 * `error`, without the request; the last response's output stays the turn's output. A rejection of
 * either ends the turn `failed` with it (a budget that cannot be checked is not spent blindly).
 */
export interface TurnBudget {
  /** Undefined lets the request go; a reason (what limit, spent against what) refuses it. */
  beforeRequest(usage: AgentUsage): Promise<string | undefined> | string | undefined;
  /** One response's usage, received; awaited before the loop goes on. */
  afterResponse?(usage: AgentUsage): Promise<void> | void;
}
