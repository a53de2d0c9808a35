#!/usr/bin/env node
// Scaffolds a new tool category package: `pnpm create-category <name>` (or `tools-<name>`) writes
// packages/tools-<name> with an example tool, tests that run the testkit's conformance suite, a README and a changeset.
// The new package builds and passes its tests with no edits (after `pnpm install`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** `crm-sync` -> `CrmSync`. */
function pascal(name) {
  return name
    .split('-')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** The names a category's files use, from its name (`crm-sync`). */
function namesOf(name) {
  const Name = pascal(name);
  const snake = name.replaceAll('-', '_');
  return {
    name,
    Name,
    packageName: `@switchyard/tools-${name}`,
    creator: `create${Name}Tools`,
    context: `${Name}ToolsContext`,
    toolName: `${snake}_echo`,
    toolCreator: `create${Name}EchoTool`,
    turn: `${Name}SwitchyardTurn`,
    optionsError: `${Name}OptionsError`,
  };
}

/** `package.json`: the package as every category's, depending on core, testing with the testkit. */
function packageJson({ name, packageName }, versions) {
  return `${JSON.stringify(
    {
      name: packageName,
      version: '0.1.0',
      description: `Switchyard ${name} tools`,
      type: 'module',
      sideEffects: false,
      license: 'MIT',
      exports: {
        './package.json': './package.json',
        '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      },
      main: './dist/index.js',
      types: './dist/index.d.ts',
      files: ['dist', 'CHANGELOG.md', 'README.md'],
      scripts: {
        build: 'tsup',
        'type-check': 'tsc --noEmit',
        lint: 'biome check .',
        test: 'vitest --run',
        'check-package': 'bash ../../scripts/check-package.sh',
      },
      dependencies: { '@switchyard/core': 'workspace:^' },
      peerDependencies: { zod: '^4.0.0' },
      devDependencies: {
        zod: versions.zod,
        '@switchyard/test-support': 'workspace:*',
        '@switchyard/testkit': 'workspace:^',
      },
      engines: { node: '>=20.19' },
    },
    null,
    2,
  )}\n`;
}

const TSCONFIG = `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "noEmit": true },
  "include": ["src", "*.config.ts"]
}
`;

const TSUP_CONFIG = `import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig(libraryBuild);
`;

/** `src/index.ts`: the public entry, the creator and its context, and the worker's entry. */
function indexSource({ name, creator, context, turn, optionsError }) {
  return `// Any export added here is public API: keep it named, documented and deliberate.

export type { ${context} } from './create-${name}-tools';
export { ${creator} } from './create-${name}-tools';
export { ${optionsError} } from './options-error';
export type { ${turn} } from './switchyard-tools';
export { createSwitchyardTools } from './switchyard-tools';
`;
}

/** `['a', 'b']`: names sorted as `describePublicApi` pins them (code-unit order, as `Array#sort`). */
function quotedList(names) {
  return `[${[...names]
    .sort()
    .map((name) => `'${name}'`)
    .join(', ')}]`;
}

/** `src/index.test.ts`: the entry's runtime and type names, pinned. */
function indexTestSource({ packageName, creator, context, turn, optionsError }) {
  return `import { describePublicApi } from '@switchyard/test-support';
import * as publicApi from './index';

// Every name the package exports, runtime and types: adding one widens what it must keep stable.
describePublicApi('${packageName}', {
  source: new URL('./index.ts', import.meta.url),
  module: publicApi,
  runtime: ${quotedList([creator, 'createSwitchyardTools', optionsError])},
  types: ${quotedList([context, turn])},
});
`;
}

/** `src/create-<name>-tools.ts`: the creator, its context and its option check. */
function creatorSource({ name, creator, context, toolCreator }) {
  return `import type { AnyWorkerAgentTool } from '@switchyard/core';
import { ${toolCreator} } from './${name}-echo-tool';

/** What \`${creator}\` needs from the turn. Declare services here as interfaces; the worker passes them in. */
export interface ${context} {
  /** Text put before every echo. */
  prefix?: string;
}

/**
 * Creates the ${name} tools for one turn.
 *
 * Contract: cheap and free of I/O (it may run on every turn); throws naming the field for bad options.
 *
 * @example
 * const tools = [...${creator}({ prefix: '> ' })];
 */
export function ${creator}(context: ${context} = {}): AnyWorkerAgentTool[] {
  if (context.prefix !== undefined && typeof context.prefix !== 'string') {
    throw new TypeError('${creator}: prefix must be a string');
  }
  return [${toolCreator}(context)];
}
`;
}

/** `src/<name>-echo-tool.ts`: the example tool. */
function echoToolSource({ name, context, toolName, toolCreator }) {
  return `import { defineWorkerTool } from '@switchyard/core';
import { z } from 'zod';
import type { ${context} } from './create-${name}-tools';

// Module level: schema conversion is cached per schema object, so per-turn creation costs nothing.
const schema = z.object({
  text: z.string().describe('The text to echo back'),
  times: z.number().int().min(1).max(100).describe('How many times to repeat it (1 to 100)').optional(),
});

/** The example tool: echoes text back. Replace it with your category's first real tool. */
export function ${toolCreator}(context: ${context}) {
  return defineWorkerTool({
    name: '${toolName}',
    description: 'Echo text back, optionally repeated.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ text }) => \`Echoing "\${text.slice(0, 40)}"\`,
    describeCompletedActivity: ({ times }) => \`Echoed \${times ?? 1} time(s)\`,
    execute: ({ text, times }, { signal }) => {
      if (signal.aborted) return { content: 'Cancelled.', isError: true };
      const echoed = Array.from({ length: times ?? 1 }, () => \`\${context.prefix ?? ''}\${text}\`).join('\\n');
      return { content: echoed, details: { times: times ?? 1 } };
    },
  });
}
`;
}

/**
 * `src/switchyard-tools.ts`: the creator a Switchyard worker calls on every text turn when the
 * package is installed by configuration (`"categories": { "<package>": { "options": { ... } } }`).
 */
function switchyardToolsSource({ name, creator, turn, optionsError }) {
  return `import type { AnyWorkerAgentTool } from '@switchyard/core';
import { ${creator} } from './create-${name}-tools';
import { ${optionsError} } from './options-error';

/** What a Switchyard worker passes to \`createSwitchyardTools\` on every text turn (the creator contract). */
export interface ${turn} {
  /** The agent the turn runs for. */
  agent: string;
  /** The agent's home: an absolute folder that exists. */
  home: string;
  /** \`categories.<this package>.options\` of the worker's configuration, unchecked. */
  options: Readonly<Record<string, unknown>>;
  /** Aborts when the turn is cancelled. */
  signal: AbortSignal;
}

/**
 * The worker's entry: checks the options the configuration gives and creates the turn's tools.
 *
 * Contract: cheap and free of I/O (called on every text turn, and at the worker's start-up); throws
 * \`${optionsError}\` naming the option for an unknown or malformed one, so the worker refuses to
 * start naming \`categories.<this package>.options.<field>\`.
 *
 * @example
 * // switchyard.config.json: { "categories": { "<this package>": { "options": { "prefix": "> " } } } }
 */
export function createSwitchyardTools(turn: ${turn}): AnyWorkerAgentTool[] {
  const { prefix, ...others } = turn.options;
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) {
    throw new ${optionsError}(unknown, 'is not an option of this category (known: prefix)');
  }
  if (prefix !== undefined && typeof prefix !== 'string') {
    throw new ${optionsError}('prefix', 'must be a string');
  }
  return ${creator}(prefix === undefined ? {} : { prefix });
}
`;
}

/** `src/options-error.ts`: the error naming a refused option. */
function optionsErrorSource({ optionsError }) {
  return `/** An option the worker's configuration gives that this category refuses: \`field\` names it. */
export class ${optionsError} extends TypeError {
  /** The option, as the configuration names it under \`options\`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = '${optionsError}';
    this.field = field;
  }
}
`;
}

/** `src/switchyard-tools.test.ts`: the worker's entry, as a worker calls it. */
function switchyardToolsTestSource({ toolName, optionsError }) {
  return `import { runToolCall } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { createSwitchyardTools } from './index';
import { ${optionsError} } from './options-error';

const turn = { agent: 'main', home: '/tmp', signal: new AbortController().signal };

describe('createSwitchyardTools', () => {
  it('creates the tools with the options of the configuration', async () => {
    const tools = createSwitchyardTools({ ...turn, options: { prefix: '# ' } });
    expect(tools.map((tool) => tool.name)).toEqual(['${toolName}']);
    const [tool] = tools;
    if (!tool) throw new Error('no tool');
    const call = await runToolCall(tool, '{"text":"hi"}');
    expect(call.end.result.content).toBe('# hi');
  });

  it('refuses an unknown or malformed option, naming it', () => {
    for (const [options, field, message] of [
      [{ prefx: '' }, 'prefx', /not an option/],
      [{ prefix: 3 }, 'prefix', /must be a string/],
    ] as const) {
      const refused = (() => {
        try {
          createSwitchyardTools({ ...turn, options });
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(${optionsError});
      expect(refused).toMatchObject({ field, message: expect.stringMatching(message) });
    }
  });
});
`;
}

/** `src/create-<name>-tools.test.ts`: the conformance suite and the example tool's tests. */
function testSource({ name, creator, toolName }) {
  return `import { runToolCall } from '@switchyard/testkit';
import { describeToolCategory } from '@switchyard/testkit/conformance';
import { describe, expect, it } from 'vitest';
import { ${creator} } from './index';

describeToolCategory('${name}', () => ${creator}({ prefix: '> ' }), {
  samples: { ${toolName}: [{ text: 'hello', times: 2 }] },
});

describe('${toolName}', () => {
  it('echoes the text the model sent, repeated', async () => {
    const [tool] = ${creator}({ prefix: '> ' });
    if (!tool) throw new Error('no tool');
    const call = await runToolCall(tool, '{"text":"hi","times":2}');
    expect(call.end.outcome).toBe('completed');
    expect(call.end.result.content).toBe('> hi\\n> hi');
  });

  it('refuses bad options naming the field', () => {
    expect(() => ${creator}({ prefix: 3 as never })).toThrow(/prefix/);
  });
});
`;
}

/** `README.md`: install, options, tools, an example. */
function readme({ name, packageName, creator, toolName }) {
  return `# ${packageName}

Switchyard ${name} tools.

\`\`\`sh
pnpm add ${packageName} @switchyard/core zod
\`\`\`

## Options

\`${creator}(ctx)\`:

| option | default | meaning |
|---|---|---|
| \`prefix\` | none | text put before every echo |

## Tools

- \`${toolName} { text, times? }\`: echoes text back, 1 to 100 times (read-only, parallel).

## Example

\`\`\`ts
import { ${creator} } from '${packageName}';

const tools = [...${creator}({ prefix: '> ' })];
\`\`\`

## In a Switchyard worker

Install the package in the folder of the worker's \`switchyard.config.json\` and name it there; the
worker calls \`createSwitchyardTools\` on every text turn, after its built-in categories:

\`\`\`json
{ "categories": { "computer": {}, "${packageName}": { "options": { "prefix": "> " } } } }
\`\`\`
`;
}

/** The changeset of the first release. */
function changeset({ name, packageName }) {
  return `---
"${packageName}": minor
---

First release of the ${name} tool category.
`;
}

/**
 * Every file of a new category package by its path from the package's folder (the changeset's
 * path leads out of it, to the repository's `.changeset/`); `versions.zod` is the zod its tests use.
 */
function categoryFiles(name, versions) {
  const names = namesOf(name);
  return {
    'package.json': packageJson(names, versions),
    'tsconfig.json': TSCONFIG,
    'tsup.config.ts': TSUP_CONFIG,
    'src/index.ts': indexSource(names),
    'src/index.test.ts': indexTestSource(names),
    [`src/create-${name}-tools.ts`]: creatorSource(names),
    [`src/${name}-echo-tool.ts`]: echoToolSource(names),
    [`src/create-${name}-tools.test.ts`]: testSource(names),
    'src/options-error.ts': optionsErrorSource(names),
    'src/switchyard-tools.ts': switchyardToolsSource(names),
    'src/switchyard-tools.test.ts': switchyardToolsTestSource(names),
    'README.md': readme(names),
    [`../../.changeset/tools-${name}-initial.md`]: changeset(names),
  };
}

export const USAGE = `Usage: pnpm create-category <name>

Writes packages/tools-<name>: a tool category package with an example tool, its conformance
tests, a README and a changeset. <name> is lower-case words joined by '-'; the 'tools-' prefix is
optional ('crm' and 'tools-crm' both write packages/tools-crm).

Examples:
  pnpm create-category crm
  pnpm create-category tools-crm-sync

Options:
  -h, --help  Print this help.
`;

/** Thrown for a missing or malformed name: the command prints the usage with it and exits with 2. */
export class CategoryNameError extends Error {}

const PREFIX = 'tools-';

/**
 * The category name without the optional `tools-` prefix: `tools-crm` and `crm` are both `crm`.
 * Throws `CategoryNameError` for anything else than lower-case words joined by '-'.
 */
export function categoryName(name) {
  if (typeof name !== 'string' || name === '') {
    throw new CategoryNameError('create-category: a category name is required');
  }
  const bare = name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name;
  if (!NAME_PATTERN.test(bare)) {
    throw new CategoryNameError(
      `create-category: the name must be lower-case words joined by '-' (e.g. crm or crm-sync), got ${JSON.stringify(name)}`,
    );
  }
  return bare;
}

/**
 * Writes the package into `<root>/packages/tools-<name>`; `name` may carry the `tools-` prefix.
 * @returns the package directory.
 */
export function createCategory(root, requestedName) {
  const name = categoryName(requestedName);
  const directory = path.join(root, 'packages', `tools-${name}`);
  if (existsSync(directory))
    throw new Error(`create-category: ${path.relative(root, directory)} already exists`);
  const corePackage = JSON.parse(readFileSync(path.join(root, 'packages', 'core', 'package.json'), 'utf8'));
  const versions = { zod: corePackage.devDependencies.zod };
  for (const [file, content] of Object.entries(categoryFiles(name, versions))) {
    const target = path.join(directory, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return directory;
}

/** Runs the command line; returns the exit code (0 done, 1 failed, 2 usage error). */
function main(argv) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  // pnpm passes a `--` through when a user types one before the arguments.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  try {
    const unknownOption = args.find((arg) => arg.startsWith('-'));
    if (unknownOption !== undefined) {
      throw new CategoryNameError(`create-category: unknown option ${unknownOption}`);
    }
    if (args.length > 1) {
      throw new CategoryNameError(
        `create-category: expected one name, got ${args.length}: ${args.join(' ')}`,
      );
    }
    const name = categoryName(args[0]);
    const directory = createCategory(root, name);
    const relative = path.relative(root, directory);
    process.stdout.write(
      `Created ${relative}.\nNext:\n  pnpm install\n  pnpm exec turbo run build test --filter=@switchyard/tools-${name}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof CategoryNameError) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.exitCode = main(process.argv.slice(2));
}
