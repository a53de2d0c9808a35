// Any export added here is public API: keep it named, documented and deliberate.

export type {
  AnswerApprovalOutcome,
  AnswerApprovalRequest,
  ApprovalChanges,
  ApprovalFileBefore,
  ApprovalRecord,
  ApprovalStatus,
  ListApprovalsOptions,
  RequestApprovalRequest,
  ResumableTurn,
} from './approvals/approval-record';
export type { ApprovalStore } from './approvals/approval-store';
export {
  APPROVAL_INLINE_ARGUMENT_BYTES,
  APPROVAL_MAX_ARGUMENT_BYTES,
  APPROVAL_PREVIEW_BYTES,
} from './approvals/stored-arguments';
export type { BrainOptions } from './brain/brain-limits';
export type {
  BrainHitRecord,
  BrainPageDetails,
  BrainPageRecord,
  BrainPageSummary,
  BrainWriteRecord,
  RecallRequest,
  RememberRequest,
} from './brain/brain-record';
export type { ControlPlaneBrainService } from './brain/brain-service';
export type { BrainPruneRecord } from './brain/prune-brain';
export type {
  AgentBudgetStore,
  AgentStartKind,
  AgentStartLimits,
  AgentStartLimitsOf,
  AgentUsageRecord,
} from './budgets/agent-budget-store';
export type { DataDirLockLoss } from './database/data-dir-lock';
export { ControlPlaneConfigError } from './errors/control-plane-config-error';
export { ControlPlaneInputError } from './errors/control-plane-input-error';
export { RateLimitedError } from './errors/rate-limited-error';
export { TurnJournalFencedError } from './errors/turn-journal-fenced-error';
export type {
  ClaimIdempotencyKeyRequest,
  IdempotencyClaim,
  IdempotencyClaimFence,
  IdempotentOperation,
  StoredAnswer,
} from './idempotency/idempotency-record';
export {
  IDEMPOTENCY_KEY_LIFETIME_MS,
  type IdempotencyStore,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './idempotency/idempotency-store';
export { type ControlPlane, type ControlPlaneOptions, openControlPlane } from './open-control-plane';
export type { QueueDepth } from './queues/queue-depths';
export { AGENT_ID_PATTERN } from './schedules/agent-id';
export type { CreateScheduleRequest, ScheduleRecord, ScheduleRunRecord } from './schedules/schedule-record';
export type { ControlPlaneScheduleService, ScheduleLimits } from './schedules/schedule-service';
export type {
  ScheduleTicker,
  ScheduleTickerStartOptions,
  ScheduleTickOptions,
  ScheduleTickResult,
} from './schedules/schedule-ticker';
export type { TurnRequest, TurnRequestContext, TurnRequestHandler } from './turn-requests/turn-request';
export type {
  TurnRequestOptions,
  TurnRequestQueue,
  TurnRequestWorkOptions,
} from './turn-requests/turn-request-queue';
export type { DetachedTurnEnd } from './turns/detached-turn-end';
export type { OpenedTurnJournal, TurnJournalStore } from './turns/turn-journal-store';
export type {
  InterruptedTurnRecord,
  ListTurnsOptions,
  RecordTurnEndRequest,
  RecordTurnStartRequest,
  RecoveredUnit,
  TurnChanges,
  TurnCursor,
  TurnEndStatus,
  TurnEventLog,
  TurnHeartbeat,
  TurnRecord,
  TurnRecordStatus,
  TurnRecovery,
  TurnSource,
  TurnUsage,
} from './turns/turn-record';
export { TURN_SOURCES, TURN_STATUSES } from './turns/turn-record';
export type { TurnSourceDetail } from './turns/turn-sources';
export type { TurnStore } from './turns/turn-store';
export { TURN_TITLE_MAX_CHARACTERS, turnTitleOf } from './turns/turn-title';
export type {
  CreateBackgroundJobRequest,
  CreateWorkflowRequest,
  StoredWork,
  StoreTaskResultRequest,
  WorkStore,
} from './work/work-store';
export type {
  BackgroundJobRecord,
  ControlPlaneBackgroundJobService,
  StartBackgroundJobRequest,
} from './workflows/background-job-service';
export { checkResultSchema, type ResultSchemaCheck } from './workflows/check-result-schema';
export {
  type CheckedWorkflowTask,
  checkWorkflowSpec,
  type WorkflowSpec,
  type WorkflowTaskSpec,
} from './workflows/check-workflow-spec';
export { validateResult } from './workflows/validate-result';
export type {
  SubmitResultOutcome,
  SubmitResultRequest,
  WorkOrigin,
  WorkTurn,
  WorkTurnContext,
  WorkTurnHandler,
  WorkTurnHandlerResult,
  WorkTurnOutcome,
} from './workflows/work-turn';
export type { WorkTurnOptions, WorkTurnQueue, WorkTurnWorkOptions } from './workflows/work-turn-queue';
export type {
  ControlPlaneWorkflowService,
  StartWorkflowRequest,
  WorkflowRecord,
  WorkflowStatus,
  WorkflowTaskRecord,
} from './workflows/workflow-service';
