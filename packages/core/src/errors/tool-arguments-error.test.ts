import { describe, expect, it } from 'vitest';
import { SwitchyardError } from './switchyard-error';
import { ToolArgumentsError } from './tool-arguments-error';

describe('ToolArgumentsError', () => {
  it('carries the tool, reason and issues, and is recognised by its marker', () => {
    const error = new ToolArgumentsError({
      toolName: 'read_note',
      reason: 'invalid-arguments',
      issues: [{ path: '/name', message: 'missing: expected string' }],
      raw: '{}',
    });
    expect(error.name).toBe('ToolArgumentsError');
    expect(error.toolName).toBe('read_note');
    expect(error.reason).toBe('invalid-arguments');
    expect(ToolArgumentsError.isInstance(error)).toBe(true);
    expect(SwitchyardError.isInstance(error)).toBe(true);
    expect(ToolArgumentsError.isInstance(new SwitchyardError('other'))).toBe(false);
    expect(error.message).toBe(
      "Invalid arguments for tool 'read_note' (nothing was run):\n- /name: missing: expected string\nReceived: 2 characters (not repeated here: they are the arguments of your call).",
    );
  });

  it('recognises an instance from another copy of core by the shared symbol', () => {
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('switchyard.error.ToolArgumentsError'), {
      value: true,
    });
    expect(ToolArgumentsError.isInstance(foreign)).toBe(true);
  });

  it('says when the input was empty, and never echoes a non-empty one', () => {
    const empty = new ToolArgumentsError({ toolName: 't', reason: 'truncated', issues: [], raw: '' });
    expect(empty.message).toContain('nothing (an empty string)');
    const raw = `${'a'.repeat(199)}😀${'b'.repeat(10)}`;
    const error = new ToolArgumentsError({ toolName: 't', reason: 'invalid-json', issues: [], raw });
    expect(error.message).toContain(`Received: ${raw.length} characters`);
    expect(error.message).not.toContain('aaa');
  });
});
