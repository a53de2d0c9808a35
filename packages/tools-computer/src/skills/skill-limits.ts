import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { mergePositiveLimits } from '../merge-positive-limits';

/**
 * Bounds on what an agent home's Skills cost a turn. A Skill file may have been written by a model, so
 * every one of them is read, parsed and projected under these limits.
 */
export interface SkillLimits {
  /** Skill folders read per turn, the first in name order; the rest are reported, not read. */
  maxSkills: number;
  /**
   * The largest front matter in UTF-8 bytes, from the first `---` line through the closing one: only
   * that much of a SKILL.md is read (the instructions below it are the model's to read with
   * `read_file`), and a front matter not closed within it is refused before any parsing.
   */
  maxFrontMatterBytes: number;
  /** The most one Skill adds to the instructions, in UTF-8 bytes (its entry is cut to fit). */
  maxBytesPerSkill: number;
  /** The most all Skills add to one turn's instructions, in UTF-8 bytes (later Skills are only counted). */
  maxBytes: number;
}

/** The limits `loadSkills` and `projectSkills` use for a field not given. */
export const DEFAULT_SKILL_LIMITS: Readonly<SkillLimits> = Object.freeze({
  maxSkills: 100,
  maxFrontMatterBytes: 8 * 1024,
  maxBytesPerSkill: 2 * 1024,
  maxBytes: 32 * 1024,
});

/**
 * The smallest `maxBytesPerSkill`: a Skill's entry without its description (its name and path, the
 * marker, an MCP line naming one server) takes up to about 750 bytes, and a cut description must fit.
 */
const MIN_BYTES_PER_SKILL = 1024;

/**
 * Checks Skill limits and fills in the defaults.
 *
 * Contract: throws `ComputerToolsConfigError` naming the field (`limits.maxSkills`, ...) for an unknown
 * field or a value that is not a positive integer, and for `maxBytesPerSkill` under 1,024 or above
 * `maxBytes`.
 */
export function resolveSkillLimits(limits: Partial<SkillLimits> | undefined): SkillLimits {
  const resolved = mergePositiveLimits<SkillLimits>(limits, DEFAULT_SKILL_LIMITS, { noun: 'Skill limit' });
  if (resolved.maxBytesPerSkill < MIN_BYTES_PER_SKILL || resolved.maxBytesPerSkill > resolved.maxBytes) {
    throw new ComputerToolsConfigError({
      field: 'limits.maxBytesPerSkill',
      message: `must be between ${MIN_BYTES_PER_SKILL} and limits.maxBytes (${resolved.maxBytes}), got ${resolved.maxBytesPerSkill}`,
    });
  }
  return resolved;
}
