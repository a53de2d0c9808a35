import { copyFile, mkdir, realpath, symlink } from 'node:fs/promises';
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
