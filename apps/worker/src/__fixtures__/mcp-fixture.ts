import { copyFile, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The tools-mcp package's calc server over stdio: a real MCP server built with the SDK (its
 * `add` tool adds two numbers). Reused rather than copied so both packages test the same server.
 */
export const calcStdioServer = fileURLToPath(
  new URL('../../../../packages/tools-mcp/src/__fixtures__/calc-stdio.mjs', import.meta.url),
);

/**
 * Puts the calc stdio server in a Skill's folder as a Skill ships its server: its files, and its
 * dependency linked to its real install. A sandboxed command sees the home and the installs, not
 * this repository's sources (a checkout under /tmp is hidden by the sandbox's private /tmp).
 * Returns the server's path.
 */
export async function installCalcServer(skillDirectory: string): Promise<string> {
  const source = path.dirname(calcStdioServer);
  const target = path.join(skillDirectory, 'server');
  await mkdir(path.join(target, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  for (const file of ['calc-stdio.mjs', 'calc-server.mjs', 'add-input-schema.json']) {
    await copyFile(path.join(source, file), path.join(target, file));
  }
  const sdk = await realpath(path.join(source, '..', '..', 'node_modules', '@modelcontextprotocol', 'sdk'));
  await symlink(sdk, path.join(target, 'node_modules', '@modelcontextprotocol', 'sdk'), 'dir');
  return path.join(target, 'calc-stdio.mjs');
}

/**
 * Writes the MCP-backed `calc` Skill into an agent's home (`<home>/skills/calc`): its SKILL.md names
 * the calc stdio server, installed beside it. Returns the Skill's folder.
 */
export async function installCalcSkill(home: string): Promise<string> {
  const skill = path.join(home, 'skills/calc');
  await mkdir(skill, { recursive: true });
  await writeFile(
    path.join(skill, 'SKILL.md'),
    [
      '---',
      'name: calc',
      'description: Arithmetic with the calc MCP server.',
      'mcp:',
      '  calc:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(await installCalcServer(skill))}]`,
      '---',
      'Add numbers with `mcporter call calc.add a=1 b=2`.',
      '',
    ].join('\n'),
  );
  return skill;
}
