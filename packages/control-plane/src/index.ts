// Any export added here is public API: keep it named, documented and deliberate.

export type {
  AnswerApprovalOutcome,
  AnswerApprovalRequest,
  ApprovalChanges,
  ApprovalRecord,
  ApprovalStatus,
  ListApprovalsOptions,
  RequestApprovalRequest,
  ResumableTurn,
} from './approvals/approval-record';
export { ApprovalStore } from './approvals/approval-store';
export type {
  BrainHitRecord,
  BrainPageDetails,
  BrainPageRecord,
  BrainPageSummary,
  BrainWriteRecord,
  RecallRequest,
  RememberRequest,
} from './brain/brain-record';
export { type BrainLimits, ControlPlaneBrainService } from './brain/brain-service';
export type { QueryResult } from './database/database';
export { ControlPlaneConfigError } from './errors/control-plane-config-error';
export { ControlPlaneInputError } from './errors/control-plane-input-error';
export { type ControlPlane, type ControlPlaneOptions, openControlPlane } from './open-control-plane';
export { type DatabaseTarget, resolveDatabaseTarget } from './resolve-database-target';
export { AGENT_ID_PATTERN } from './schedules/agent-id';
export type { CreateScheduleRequest, ScheduleRecord } from './schedules/schedule-record';
export { ControlPlaneScheduleService, type ScheduleLimits } from './schedules/schedule-service';
export {
  ScheduleTicker,
  type ScheduleTickerStartOptions,
  type ScheduleTickOptions,
  type ScheduleTickResult,
} from './schedules/schedule-ticker';
export { formatInTimeZone } from './schedules/schedule-timing';
export type { TurnRequest, TurnRequestContext, TurnRequestHandler } from './turn-requests/turn-request';
export {
  type TurnRequestOptions,
  TurnRequestQueue,
  type TurnRequestWorkOptions,
  turnRequestQueueName,
} from './turn-requests/turn-request-queue';
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
export { type DetachedTurnEnd, TurnStore } from './turns/turn-store';
export {
  type CreateBackgroundJobRequest,
  type CreateWorkflowRequest,
  type StoredWork,
  type StoreTaskResultRequest,
  WorkStore,
} from './work/work-store';
export {
  type BackgroundJobRecord,
  ControlPlaneBackgroundJobService,
  type StartBackgroundJobRequest,
} from './workflows/background-job-service';
export {
  checkResultSchema,
  RESULT_SCHEMA_LIMITS,
  type ResultSchemaCheck,
} from './workflows/check-result-schema';
export {
  type CheckedWorkflowTask,
  checkWorkflowSpec,
  MAX_WORKFLOW_TASKS,
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
export {
  type WorkTurnOptions,
  WorkTurnQueue,
  type WorkTurnWorkOptions,
  workTurnQueueName,
} from './workflows/work-turn-queue';
export {
  ControlPlaneWorkflowService,
  type StartWorkflowRequest,
  type WorkflowRecord,
  type WorkflowStatus,
  type WorkflowTaskRecord,
} from './workflows/workflow-service';
