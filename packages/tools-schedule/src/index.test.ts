import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

describePublicApi('@switchyard/tools-schedule', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: ['ScheduleToolsConfigError', 'createScheduleTools'],
  types: ['ScheduleCreateRequest', 'ScheduleService', 'ScheduleSummary', 'ScheduleToolsContext'],
});
