import { collectToolSchemas } from '@switchyard/core';
import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { useTempHome } from './__fixtures__/tool-harness';
import { ComputerToolsConfigError, checkSandbox, createComputerTools } from './index';

const temp = useTempHome();

const configError = (run: () => unknown) => thrownBy(run, ComputerToolsConfigError);

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

describe('the sandbox option', () => {
  it('throws a configuration error naming the sandbox field', () => {
    const field = (sandbox: unknown) =>
      configError(() => createComputerTools({ home: temp.home, sandbox: sandbox as 'auto' })).field;
    expect(field('sometimes')).toBe('sandbox');
    expect(field(['auto'])).toBe('sandbox');
    expect(field({ mode: 'always' })).toBe('sandbox.mode');
    expect(field({ network: 'lan' })).toBe('sandbox.network');
    expect(field({ hiddenPaths: ['/srv/homes', 'relative/state'] })).toBe('sandbox.hiddenPaths[1]');
    expect(field({ hiddenPaths: ['/'] })).toBe('sandbox.hiddenPaths[0]');
    expect(field({ bwrapPath: 'bwrap' })).toBe('sandbox.bwrapPath');
    expect(field({ networks: 'none' })).toBe('sandbox.networks');
  });

  it("refuses mode 'required' when bubblewrap cannot sandbox commands, saying why", () => {
    const error = configError(() =>
      createComputerTools({
        home: temp.home,
        sandbox: { mode: 'required', bwrapPath: `${temp.outside}/no-such-bwrap` },
      }),
    );
    expect(error.field).toBe('sandbox');
    expect(error.message).toMatch(/the mode is 'required' but commands cannot be sandboxed: .*no-such-bwrap/);
  });

  it("falls back in mode 'auto' and says so in run_command's description", () => {
    const [runCommand] = createComputerTools({
      home: temp.home,
      sandbox: { mode: 'auto', bwrapPath: `${temp.outside}/no-such-bwrap` },
    });
    expect(runCommand?.description).toContain('Commands are not sandboxed');
  });

  it('checkSandbox reports the mode in force, and why a sandbox is missing', async () => {
    const off = await checkSandbox('off');
    expect(off).toMatchObject({
      mode: 'off',
      active: false,
      network: 'none',
      summary: "not sandboxed (mode 'off')",
    });
    const missing = await checkSandbox({ bwrapPath: `${temp.outside}/no-such-bwrap` });
    expect(missing.active).toBe(false);
    expect(missing.reason).toContain('no-such-bwrap');
    expect(missing.summary).toMatch(/^not sandboxed \(mode 'auto'\): /);
    // This machine (and CI, which installs bubblewrap) can sandbox: the tests of the sandbox need it.
    const here = await checkSandbox({ mode: 'required', network: 'host' });
    expect(here).toMatchObject({ mode: 'required', active: true, network: 'host' });
    expect(here.summary).toMatch(/^sandboxed \(bubblewrap \d+\.\d+(\.\d+)?, network host\)$/);
    await expect(checkSandbox({ mode: 'sometimes' as 'auto' })).rejects.toThrow(/sandbox\.mode/);
  });
});
