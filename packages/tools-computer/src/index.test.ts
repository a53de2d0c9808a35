import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

describePublicApi('@switchyard/tools-computer', publicApi, [
  'ComputerToolsConfigError',
  'DEFAULT_SKILL_LIMITS',
  'MCPORTER_CONFIG_PATH',
  'checkSandbox',
  'createComputerTools',
  'loadSkills',
  'projectSkills',
  'writeMcporterConfig',
]);
