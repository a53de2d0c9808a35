import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openForSuite } from './__fixtures__/open-for-suite';
import { runCli } from './__fixtures__/run-cli';
import {
  type ScaffoldedCategory,
  scaffoldCategory,
  writeCategoryPackage,
} from './__fixtures__/scaffolded-category';
import { parseConfig } from './config/load-config';
import { requestJson, waitForTurnEnd } from './daemon/__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './daemon/__fixtures__/serve-folder';

const PACKAGE = '@switchyard/tools-crm';

describe('categories.<package> in the configuration', () => {
  it('takes a package name beside the built-in categories, in the file order, with its options', () => {
    const config = parseConfig(
      {
        categories: {
          '@acme/tools-crm': { options: { region: 'eu' }, services: ['brain'] },
          computer: {},
          'tools-billing': { export: 'createBillingTools' },
        },
      },
      { env: {}, baseDir: '/srv/worker' },
    );
    expect(Object.keys(config.categories)).toEqual(['computer', 'packages']);
    expect(config.categories.packages).toEqual([
      {
        name: '@acme/tools-crm',
        options: { region: 'eu' },
        exportName: 'createSwitchyardTools',
        services: ['brain'],
      },
      { name: 'tools-billing', options: {}, exportName: 'createBillingTools', services: [] },
    ]);
  });

  it('refuses a key that is neither a built-in category nor a package name, and a malformed entry', () => {
    expect(() => parseConfig({ categories: { 'Not A Package': {} } }, { env: {} })).toThrow(
      /categories\.Not A Package: is neither a built-in category \(computer, web, schedule, jobs, workflow, brain, mcp\) nor a package name/,
    );
    expect(() => parseConfig({ categories: { '@acme/tools-crm': { option: {} } } }, { env: {} })).toThrow(
      /categories\.@acme\/tools-crm\.option: is not a known field/,
    );
    expect(() =>
      parseConfig({ categories: { '@acme/tools-crm': { services: ['mail'] } } }, { env: {} }),
    ).toThrow(
      /categories\.@acme\/tools-crm\.services\[0\]: must be 'schedules', 'workflows', 'backgroundJobs' or 'brain'/,
    );
  });
});

describe('a category scaffolded by create-category, built and installed by configuration', () => {
  const category = openForSuite<ScaffoldedCategory>(async () => scaffoldCategory('crm'));

  describe('switchyard tools and its refusals (built CLI)', () => {
    let folder: string;
    const env = () => ({ HOME: folder });

    beforeAll(async () => {
      folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-installed-'));
      category().installInto(folder);
    });
    afterAll(() => rm(folder, { recursive: true, force: true }));

    const writeConfig = (categories: Record<string, unknown>) =>
      writeFile(path.join(folder, 'switchyard.config.json'), JSON.stringify({ categories }));

    it('lists its tool after the built-in categories, with the category named by its package', async () => {
      await writeConfig({ computer: { sandbox: 'off' }, [PACKAGE]: { options: { prefix: '> ' } } });
      const run = await runCli(['tools', '--json'], { cwd: folder, env: env() });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const tools = (JSON.parse(run.stdout) as { tools: Array<{ category: string; key: string }> }).tools;
      expect(tools.at(-1)).toMatchObject({
        category: PACKAGE,
        key: 'crm_echo',
        readOnly: true,
        description: 'Echo text back, optionally repeated.',
        // The parameters as the model gets them: strict, the optional field nullable.
        parameters: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            times: { type: ['integer', 'null'], minimum: 1, maximum: 100 },
          },
          required: ['text', 'times'],
          additionalProperties: false,
        },
      });
      expect(tools.map((tool) => tool.category)).toEqual([
        'todo',
        ...tools.filter((tool) => tool.category === 'computer').map(() => 'computer'),
        PACKAGE,
      ]);
    });

    it('refuses an option the creator refuses, naming the package and the option (exit 2)', async () => {
      await writeConfig({ [PACKAGE]: { options: { prefix: 3 } } });
      const run = await runCli(['tools'], { cwd: folder, env: env() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`categories.${PACKAGE}.options.prefix: must be a string`);
    });

    it('refuses a package that is not installed where the configuration file is, naming it (exit 2)', async () => {
      await writeConfig({ '@acme/tools-missing': {} });
      const run = await runCli(['tools'], { cwd: folder, env: env() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `categories.@acme/tools-missing: the package cannot be found from ${folder}`,
      );
    });

    it('refuses a package without the creator export, a creator that throws, and tools that break the contract', async () => {
      writeCategoryPackage(folder, '@acme/no-creator', 'export const createOtherTools = () => [];\n');
      writeCategoryPackage(
        folder,
        '@acme/throwing',
        "export function createSwitchyardTools() { throw new Error('the CRM_URL is not set'); }\n",
      );
      writeCategoryPackage(
        folder,
        '@acme/broken-tools',
        "export function createSwitchyardTools() { return [{ name: 'find contact', description: 'x' }]; }\n",
      );
      writeCategoryPackage(
        folder,
        '@acme/async',
        'export async function createSwitchyardTools() { return []; }\n',
      );
      const refusals: Array<[string, string]> = [
        [
          '@acme/no-creator',
          'categories.@acme/no-creator.export: the package exports no function createSwitchyardTools',
        ],
        [
          '@acme/throwing',
          'categories.@acme/throwing: createSwitchyardTools refused to create its tools: the CRM_URL is not set',
        ],
        [
          '@acme/broken-tools',
          'categories.@acme/broken-tools: createSwitchyardTools returned a tool [0] ("find contact") that has no valid name',
        ],
        [
          '@acme/async',
          'categories.@acme/async: createSwitchyardTools must return an array of tools, synchronously',
        ],
      ];
      for (const [name, message] of refusals) {
        await writeConfig({ [name]: {} });
        const run = await runCli(['tools'], { cwd: folder, env: env() });
        expect(run.code, name).toBe(2);
        expect(run.stderr).toContain(message);
      }
    });

    it('refuses a tool with the name of a built-in one, naming the package', async () => {
      writeCategoryPackage(
        folder,
        '@acme/shadow',
        `import { createSwitchyardTools as crm } from '${PACKAGE}';
export function createSwitchyardTools(turn) {
  return crm(turn).map((tool) => ({ ...tool, name: 'update_todos' }));
}
`,
      );
      // The hand-made package imports the scaffolded one: install it next to it.
      category().installInto(path.join(folder, 'node_modules', '@acme', 'shadow'));
      await writeConfig({ '@acme/shadow': {} });
      const run = await runCli(['tools'], { cwd: folder, env: env() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'categories.@acme/shadow: its tool update_todos has the name of a tool of todo',
      );
    });
  });

  describe('switchyard serve, the fake model calling its tool', () => {
    let served: FakeModelServe;

    beforeAll(async () => {
      served = await ServeFolder.serveOnFakeModel('installed-category', {
        script: (request) =>
          request.functionCallOutputs.length === 0
            ? toolCallStep('crm_echo', { text: 'hello', times: 2 })
            : { text: 'Echoed.' },
        settings: { categories: { [PACKAGE]: { options: { prefix: '> ' } } } },
        prepare: async (folder) => category().installInto(folder.path),
      });
    }, 180_000);
    afterAll(() => served?.folder.remove(), 120_000);

    it('sends the tool to the model and runs its call in a turn', async () => {
      const started = await requestJson(`${served.url}/v1/turns`, { body: { prompt: 'echo hello twice' } });
      expect(started.status).toBe(202);
      const turn = (await waitForTurnEnd(served.url, started.body.id as string)).body;
      expect(turn).toMatchObject({ status: 'completed', output: 'Echoed.' });
      const [first, second] = served.fake.requests;
      expect(first?.toolNames).toEqual(['update_todos', 'crm_echo']);
      // GET /v1/tools gives each tool's parameters exactly as this request sent them.
      const manifest = await requestJson(`${served.url}/v1/tools`);
      const rows = manifest.body.tools as Array<{ key: string; parameters: unknown }>;
      const sent = (first?.body.tools ?? []) as Array<{ name: string; parameters: unknown }>;
      expect(rows.map((row) => [row.key, row.parameters])).toEqual(
        sent.map((tool) => [tool.name, tool.parameters]),
      );
      expect(second?.functionCallOutputs.map((output) => output.output)).toEqual(['> hello\n> hello']);
    });

    it('refuses to start when the creator refuses its options, naming the package and the option', async () => {
      const config = await served.folder.writeConfig({
        categories: { [PACKAGE]: { options: { prefix: 3 } } },
      });
      const serve = served.folder.start(['--port', '0', '--config', config], {
        OPENAI_BASE_URL: served.fake.baseURL,
        SWITCHYARD_MODEL: 'fake-model',
      });
      expect(await serve.exited).toBe(2);
      expect(serve.log).toContain(`categories.${PACKAGE}.options.prefix: must be a string`);
    });
  });
});
