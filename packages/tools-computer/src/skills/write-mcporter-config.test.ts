import { copyFileSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CALC_SKILL_MCP_LINES } from '../__fixtures__/calc-skill';
import { callTool, useTempHome } from '../__fixtures__/tool-harness';
import { createComputerTools } from '../create-computer-tools';
import { loadSkills } from './load-skills';
import { projectSkills } from './project-skills';
import type { Skill } from './skill';
import { writeMcporterConfig } from './write-mcporter-config';

const fixture = fileURLToPath(new URL('../__fixtures__/calc-mcp-server.mjs', import.meta.url));
const packageNodeModules = fileURLToPath(new URL('../../node_modules', import.meta.url));

const temp = useTempHome(() => {
  temp.write(
    'skills/calc/SKILL.md',
    [
      '---',
      'name: calc',
      'description: Arithmetic through the calc MCP server.',
      ...CALC_SKILL_MCP_LINES,
      '---',
      'Call `mcporter call calc.add a=1 b=2`.',
    ].join('\n'),
  );
  // The skill ships its server in its folder with its dependencies linked to their real installs: a
  // sandboxed command sees the home and the installs, not this repository's sources (a checkout under
  // /tmp is hidden by the sandbox's private /tmp).
  const skill = path.join(temp.home, 'skills/calc');
  copyFileSync(fixture, path.join(skill, 'server.mjs'));
  for (const dependency of ['@modelcontextprotocol/sdk', 'zod']) {
    const link = path.join(skill, 'node_modules', dependency);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(realpathSync(path.join(packageNodeModules, dependency)), link, 'dir');
  }
});

describe('MCP-backed skills through mcporter', () => {
  it('writes the servers into config/mcporter.json with no imports, paths anchored to the config folder', async () => {
    const { skills } = await loadSkills(temp.home);
    const written = await writeMcporterConfig(temp.home, [
      ...skills,
      { ...(skills[0] as Skill), name: 'again', path: 'skills/again/SKILL.md' },
    ]);
    expect(written.servers).toEqual(['calc']);
    expect(written.problems).toEqual([
      {
        file: 'skills/again/SKILL.md',
        line: 1,
        message: 'MCP server calc is already defined by the calc skill; this definition was left out',
      },
    ]);
    expect(JSON.parse(readFileSync(path.join(temp.home, 'config/mcporter.json'), 'utf8'))).toEqual({
      mcpServers: {
        calc: {
          description: 'MCP server of the calc skill',
          command: 'node',
          args: ['../skills/calc/server.mjs'],
          env: { CALC_MODE: 'exact' },
        },
      },
      imports: [],
    });
  });

  it('calls the real stdio server end to end through run_command and the bundled mcporter, offline, in the sandbox', async () => {
    const { skills } = await loadSkills(temp.home);
    await writeMcporterConfig(temp.home, skills);
    expect(projectSkills(skills)).toContain('mcporter call calc.<tool> key=value');
    const [runCommand] = createComputerTools({
      home: temp.home,
      sourceEnv: { PATH: '/usr/bin:/bin' },
      sandbox: 'required',
    });
    if (runCommand === undefined) throw new Error('createComputerTools returned no tools');
    // No npx: the mcporter binary comes from this package's dependencies via the PATH the tools build.
    const { text, result } = await callTool(runCommand, {
      command:
        'command -v mcporter && mcporter call calc.add a=2 b=3 && mcporter call calc.echo_env name=CALC_MODE',
    });
    expect(result.details).toMatchObject({ exitCode: 0, sandboxed: true });
    expect(text).toContain('sum=5');
    expect(text).toContain('CALC_MODE=exact');
    expect(text.split('\n')[0]).toMatch(/node_modules\/\.bin\/mcporter$/);
  }, 60_000);
});
