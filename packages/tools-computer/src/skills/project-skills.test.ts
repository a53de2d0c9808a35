import { describe, expect, it } from 'vitest';
import { projectSkills } from './project-skills';

describe('projecting skills', () => {
  it('lists each skill with its description and where its instructions live', () => {
    const text = projectSkills([
      {
        name: 'pdf-forms',
        description: 'Fill PDF\n forms.',
        path: 'skills/pdf-forms/SKILL.md',
        directory: 'skills/pdf-forms',
        mcp: {},
      },
      {
        name: 'calc',
        description: 'Arithmetic.',
        path: 'skills/calc/SKILL.md',
        directory: 'skills/calc',
        mcp: { calc: { command: 'node' } },
      },
    ]);
    expect(text).toContain('read its SKILL.md with read_file');
    expect(text).toContain('- pdf-forms: Fill PDF forms. (instructions: skills/pdf-forms/SKILL.md)');
    expect(text).toContain('- calc: Arithmetic. (instructions: skills/calc/SKILL.md)');
    expect(text).toContain('`mcporter call calc.<tool> key=value`');
  });

  it('is empty without skills', () => {
    expect(projectSkills([])).toBe('');
  });
});
