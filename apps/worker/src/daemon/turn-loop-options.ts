import { type Context as OtelContext, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { AnyWorkerAgentTool, RunAgentLoopOptions } from '@switchyard/core';
import type { ApprovalGate } from './approval-gate';
import type { DaemonTurnContext, DaemonTurnRunnerOptions } from './daemon-turn-types';
import { definedFields } from './defined-fields';
import { type EventLoopShare, sharingEventLoop } from './event-loop-share';
import type { ResumeState } from './turn-checkpoint';
import type { TurnEntry } from './turn-entry';

/** A context whose span is the remote one a stored `traceparent` names (the SDK's propagator reads it). */
function parentFromTraceParent(traceParent: string): OtelContext {
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
}

/**
 * The loop's options for one turn: the daemon's limits (its iterations less those a continued turn
 * already made), the turn's telemetry, and the gate when there are approvals. Its model requests and
 * responses, and its calls when there is a gate, take their turn in `share` with every other turn's.
 */
export function loopOptionsOf(parts: {
  options: DaemonTurnRunnerOptions;
  share: EventLoopShare;
  gate: ApprovalGate | undefined;
  entry: TurnEntry;
  context: DaemonTurnContext;
  tools: readonly AnyWorkerAgentTool[];
  instructions: string | undefined;
  resume: ResumeState | undefined;
}): RunAgentLoopOptions {
  const { options, share, gate, entry, context, resume, instructions } = parts;
  const maxIterations =
    options.maxIterations === undefined
      ? undefined
      : Math.max(1, options.maxIterations - entry.offset.iterations);
  return {
    model: sharingEventLoop(options.model, share),
    tools: parts.tools,
    input: resume?.items ?? context.prompt,
    signal: context.signal,
    telemetry: {
      agentName: context.agentId,
      attributes: {
        'switchyard.turn.id': context.turnId,
        'switchyard.turn.source': context.source,
        ...(context.sourceId === undefined ? {} : { 'switchyard.turn.source_id': context.sourceId }),
      },
      ...(context.traceParent === undefined
        ? {}
        : { parentContext: parentFromTraceParent(context.traceParent) }),
    },
    ...(instructions === undefined ? {} : { instructions }),
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...definedFields(options, ['toolTimeoutMs', 'maxParallelCalls', 'toolSearch']),
    ...(gate === undefined
      ? {}
      : {
          beforeToolCall: async (call, tool) => {
            await share.wait();
            return gate.beforeToolCall(entry, call, tool, resume);
          },
        }),
  };
}
