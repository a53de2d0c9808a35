// Any export added here is public API: keep it named, documented and deliberate.

export { createScheduleTools, type ScheduleToolsContext } from './create-schedule-tools';
export type { ScheduleCreateRequest, ScheduleService, ScheduleSummary } from './schedule-service';
