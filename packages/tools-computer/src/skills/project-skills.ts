import type { Skill } from './skill';

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The text a turn adds to its instructions for its active skills: each skill's name, description
 * and where its full instructions live (the model reads them with `read_file` when relevant), and
 * for an MCP-backed skill how to reach its servers through `run_command` and mcporter.
 *
 * Contract: pure; returns an empty string for no skills.
 *
 * @example
 * const instructions = [base, projectSkills(skills)].filter(Boolean).join('\n\n');
 */
export function projectSkills(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = [
    '# Skills',
    'Skills are instructions for particular kinds of task, kept in your home. When a task matches a',
    "skill's description, read its SKILL.md with read_file before you start, and follow it (it may point",
    'to more files in its folder).',
    '',
  ];
  for (const skill of skills) {
    lines.push(`- ${skill.name}: ${oneLine(skill.description)} (instructions: ${skill.path})`);
    const servers = Object.keys(skill.mcp);
    if (servers.length > 0) {
      const first = servers[0];
      lines.push(
        `  MCP server${servers.length === 1 ? '' : 's'}: ${servers.join(', ')}. Call a tool with run_command:`,
        `  \`mcporter call ${first}.<tool> key=value\`; list the tools with \`mcporter list ${first} --schema\`.`,
      );
    }
  }
  return lines.join('\n');
}
