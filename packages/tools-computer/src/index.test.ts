import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

describePublicApi('@switchyard/tools-computer', publicApi, [
  'ComputerToolsConfigError',
  'MCPORTER_CONFIG_PATH',
  'checkSandbox',
  'createComputerTools',
  'loadSkills',
  'projectSkills',
  'writeMcporterConfig',
]);
