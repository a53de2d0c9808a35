import { describe, expect, it } from 'vitest';
import * as publicApi from './index';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(publicApi).sort()).toEqual([
      'ComputerToolsConfigError',
      'MCPORTER_CONFIG_PATH',
      'checkSandbox',
      'createComputerTools',
      'loadSkills',
      'projectSkills',
      'writeMcporterConfig',
    ]);
  });
});
