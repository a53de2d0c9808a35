import { describe, expect, it } from 'vitest';
import { toWorkerToolName } from './mcp-tool-name';

describe('worker tool names', () => {
  it('keeps a valid name', () => {
    expect(toWorkerToolName('get_weather-2', new Set())).toBe('get_weather-2');
  });

  it('replaces refused characters and cuts to 64 characters', () => {
    expect(toWorkerToolName('files.read/all', new Set())).toBe('files_read_all');
    expect(toWorkerToolName('x'.repeat(100), new Set())).toBe('x'.repeat(64));
    expect(toWorkerToolName('', new Set())).toBe('tool');
  });

  it('adds a suffix when the name is taken, staying within 64 characters', () => {
    expect(toWorkerToolName('files.read', new Set(['files_read']))).toBe('files_read_2');
    expect(toWorkerToolName('files.read', new Set(['files_read', 'files_read_2']))).toBe('files_read_3');
    const long = toWorkerToolName('y'.repeat(70), new Set(['y'.repeat(64)]));
    expect(long).toBe(`${'y'.repeat(62)}_2`);
  });
});
