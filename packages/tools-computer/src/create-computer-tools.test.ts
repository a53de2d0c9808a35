import { collectToolSchemas } from '@switchyard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempHome, type TempHome } from './__fixtures__/tool-harness';
import { ComputerToolsConfigError, createComputerTools } from './index';

let temp: TempHome;
beforeEach(() => {
  temp = createTempHome();
});
afterEach(() => temp.remove());

function configError(run: () => unknown): ComputerToolsConfigError {
  try {
    run();
  } catch (error) {
    if (ComputerToolsConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ComputerToolsConfigError');
}

describe('createComputerTools', () => {
  it('returns the six tools with their contract names, parameters and modes', () => {
    const tools = createComputerTools({ home: temp.home });
    expect(tools.map((tool) => [tool.name, tool.executionMode, tool.isReadOnly, tool.isDestructive])).toEqual(
      [
        ['run_command', 'sequential', false, true],
        ['read_file', 'parallel', true, false],
        ['list_files', 'parallel', true, false],
        ['search_files', 'parallel', true, false],
        ['write_file', 'sequential', false, true],
        ['edit_file', 'sequential', false, true],
      ],
    );
    const { tools: schemas } = collectToolSchemas(tools);
    const parameters = Object.fromEntries(
      schemas.map((schema) => [
        'name' in schema ? schema.name : schema.type,
        Object.keys(('parameters' in schema ? schema.parameters : {}).properties as object),
      ]),
    );
    expect(parameters).toEqual({
      run_command: ['command', 'timeout_ms'],
      read_file: ['path', 'offset', 'limit'],
      list_files: ['pattern', 'path'],
      search_files: ['pattern', 'path', 'glob'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_string', 'new_string', 'replace_all'],
    });
  });

  it('throws a configuration error naming the field', () => {
    expect(configError(() => createComputerTools({ home: `${temp.home}/missing` })).field).toBe('home');
    expect(
      configError(() => createComputerTools({ home: temp.home, env: ['AWS_SECRET_ACCESS_KEY'] })).field,
    ).toBe('env[0]');
    expect(
      configError(() => createComputerTools({ home: temp.home, limits: { maxOutputBytes: -1 } })).field,
    ).toBe('limits.maxOutputBytes');
    expect(
      configError(() =>
        createComputerTools({ home: temp.home, limits: { defaultTimeoutMs: 10, maxTimeoutMs: 5 } }),
      ).field,
    ).toBe('limits.defaultTimeoutMs');
    expect(
      configError(() =>
        createComputerTools({
          home: temp.home,
          limits: { maxOutputByte: 1 } as unknown as { maxOutputBytes: number },
        }),
      ).field,
    ).toBe('limits.maxOutputByte');
  });
});
