// Any export added here is public API: keep it named, documented and deliberate.

export { createScheduleTools, type ScheduleToolsContext } from './create-schedule-tools';
export { ScheduleToolsConfigError } from './errors/schedule-tools-config-error';
export type { ScheduleCreateRequest, ScheduleService, ScheduleSummary } from './schedule-service';
