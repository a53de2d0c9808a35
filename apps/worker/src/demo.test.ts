import { describe, expect, it } from 'vitest';
import { runDemo } from './demo';

describe('switchyard demo', () => {
  it('shows the manifest and runs one call', async () => {
    const lines: string[] = [];
    await runDemo((line) => lines.push(line));
    const output = lines.join('\n');
    expect(output).toContain('offline: no model is called');
    expect(output).toMatch(/read_note\s+strict\s+eager/);
    expect(output).toMatch(/calc\.add\s+strict\s+deferred/);
    expect(output).toContain('✓ Read 2 lines of todo.md');
    expect(output).toContain('- ship the foundation');
  });
});
