import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ControlPlane, WorkTurn } from '@switchyard/control-plane';
import { testBackends } from '@switchyard/test-databases';
import { callTool as call } from '@switchyard/testkit';
import { describeToolCategory } from '@switchyard/testkit/conformance';
import { createBrainTools } from '@switchyard/tools-brain';
import { createTaskTurnTools, WorkflowToolsConfigError } from '@switchyard/tools-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarySchema } from './__fixtures__/summary-schema';
import { openTestControlPlane, type TestControlPlane } from './__fixtures__/test-control-plane';
import { parseConfig } from './config/load-config';
import { resolveAgent } from './config/resolve-agent';
import { taskTurnTools } from './task-turn-consumer';
import { buildTaskTurnBrainTools, buildTextTurnSections, buildTextTurnTools } from './text-turn';

const task: WorkTurn = {
  kind: 'workflow-task',
  agentId: 'ada',
  workflowId: '00000000-0000-4000-8000-000000000001',
  workflowName: 'release check',
  taskId: 'read',
  prompt: 'Read the notes',
  resultSchema: summarySchema,
};

for (const backend of testBackends) {
  describe.runIf(backend.available)(`${backend.title}: the Brain tools over the control plane`, () => {
    let store: TestControlPlane;
    let controlPlane: ControlPlane;
    let root: string;

    beforeAll(async () => {
      store = await openTestControlPlane({}, backend.create);
      controlPlane = store.controlPlane;
      root = await mkdtemp(path.join(os.tmpdir(), 'switchyard-brain-tools-'));
    }, 120_000);

    afterAll(async () => {
      await store?.close();
      await rm(root, { recursive: true, force: true });
    }, 120_000);

    function textTurnTools(agentId: string, categories: Record<string, unknown> = { brain: {} }) {
      const config = parseConfig({ categories }, { env: {}, baseDir: root });
      return buildTextTurnTools({
        config,
        agent: resolveAgent(config, agentId),
        services: { brain: controlPlane.brain },
        todos: { items: [] },
      });
    }

    it('gives a text turn the read-write set in its own section, only when categories.brain is on', () => {
      const config = parseConfig({ categories: { brain: {} } }, { env: {}, baseDir: root });
      const sections = buildTextTurnSections({
        config,
        agent: resolveAgent(config, 'ada'),
        services: { brain: controlPlane.brain },
        todos: { items: [] },
      });
      expect(sections.map((section) => [section.category, section.tools.map((tool) => tool.name)])).toEqual([
        ['todo', ['update_todos']],
        ['brain', ['remember', 'recall', 'get_page', 'forget']],
      ]);
      expect(textTurnTools('ada', {}).map((tool) => tool.name)).toEqual(['update_todos']);
      expect(() =>
        buildTextTurnTools({
          config,
          agent: resolveAgent(config, 'ada'),
          services: {},
          todos: { items: [] },
        }),
      ).toThrow(/^services\.brain: categories\.brain is enabled/);
    });

    it('remembers, rewrites (keeping the version), recalls, reads and forgets through the tools', async () => {
      const tools = textTurnTools('ada');
      const created = await call(tools, 'remember', {
        title: 'Release checklist',
        body: 'Tag the release, then publish the changelog to the wiki.',
        tags: ['releases'],
      });
      const { pageId } = created.details as { pageId: string };
      expect(created.content).toBe(`Created page ${pageId} "Release checklist" (version 1).`);
      const updated = await call(tools, 'remember', {
        title: 'release checklist',
        body: 'Tag the release, run the smoke tests, then publish the changelog to the wiki.',
        tags: ['releases'],
      });
      expect(updated.content).toBe(
        `Updated page ${pageId} "release checklist" to version 2; version 1 is kept.`,
      );
      const found = await call(tools, 'recall', { query: 'how do we publish the changelog' });
      expect(found.content).toMatch(
        new RegExp(`<untrusted-brain-content-[0-9a-f]{16} page="${pageId}" title="release checklist"`),
      );
      expect(found.content).toContain('changelog');
      const page = await call(tools, 'get_page', { pageId });
      expect(page.content).toContain(
        '\nTag the release, run the smoke tests, then publish the changelog to the wiki.\n',
      );
      const first = await call(tools, 'get_page', { pageId, version: 1 });
      expect(first.content).toMatch(/^Page [0-9a-f-]{36} \(version 1 of 2, not the current one/);
      expect((await call(tools, 'forget', { pageId })).isError).toBeUndefined();
      expect((await call(tools, 'recall', { query: 'changelog' })).details).toEqual([]);
      expect(await call(tools, 'get_page', { pageId })).toMatchObject({ isError: true });
    });

    it("keeps each agent to its own pages, through the tools of each agent's turns", async () => {
      const ada = textTurnTools('ada');
      const created = await call(ada, 'remember', {
        title: 'Wombat plan',
        body: 'The wombat launch is in May.',
      });
      const { pageId } = created.details as { pageId: string };
      const bob = textTurnTools('bob');
      expect((await call(bob, 'recall', { query: 'wombat launch' })).details).toEqual([]);
      expect(await call(bob, 'get_page', { pageId })).toMatchObject({ isError: true });
      expect(await call(bob, 'forget', { pageId })).toMatchObject({ isError: true });
      expect(await call(bob, 'remember', { pageId, title: 'Mine now', body: 'x' })).toMatchObject({
        isError: true,
        content: expect.stringMatching(/^Could not write the page: pageId: you have no page/),
      });
      expect((await call(ada, 'recall', { query: 'wombat launch' })).details).toMatchObject([{ pageId }]);
    });

    it('gives a task turn only the read-only pair, which reads what a text turn wrote', async () => {
      await call(textTurnTools('ada'), 'remember', {
        title: 'Supplier prices',
        body: 'Acme sells the X200 for 410 EUR.',
      });
      const config = parseConfig({ categories: { brain: {} } }, { env: {}, baseDir: root });
      const brainTools = buildTaskTurnBrainTools(config, controlPlane.brain);
      if (brainTools === undefined)
        throw new Error('categories.brain is on: the task turn must get the Brain');
      const tools = taskTurnTools(task, controlPlane, { brainTools: brainTools('ada') });
      expect(tools.map((tool) => tool.name)).toEqual(['recall', 'get_page', 'submit_result']);
      expect(tools.filter((tool) => tool.name !== 'submit_result').every((tool) => tool.isReadOnly)).toBe(
        true,
      );
      const found = await call(tools, 'recall', { query: 'X200 price' });
      expect(found.content).toContain('Acme sells the X200 for 410 EUR.');
      const off = parseConfig({ categories: {} }, { env: {}, baseDir: root });
      expect(buildTaskTurnBrainTools(off, controlPlane.brain)).toBeUndefined();
      // The read-write set cannot be smuggled into a task turn.
      let smuggled: unknown;
      try {
        createTaskTurnTools({
          task: { ...task, resultSchema: task.resultSchema },
          taskResultService: controlPlane.workTurns,
          brainTools: createBrainTools({ brain: controlPlane.brain, agentId: 'ada', mode: 'read-write' }),
        });
      } catch (error) {
        smuggled = error;
      }
      expect(WorkflowToolsConfigError.isInstance(smuggled)).toBe(true);
      expect((smuggled as WorkflowToolsConfigError).field).toBe('brainTools');
      expect((smuggled as Error).message).toMatch(/brainTools: 'remember' is not read-only/);
    });
  });
}

// The conformance suite over the real store (embedded PGlite): the tools as a text turn gets them.
describe('Brain tools over the real store', () => {
  let store: TestControlPlane;
  let controlPlane: ControlPlane;

  beforeAll(async () => {
    store = await openTestControlPlane();
    controlPlane = store.controlPlane;
    await controlPlane.brain.remember({ agentId: 'ada', title: 'Deploys', body: 'make deploy' });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
  }, 120_000);

  describeToolCategory(
    'brain (control plane)',
    () => createBrainTools({ brain: controlPlane.brain, agentId: 'ada', mode: 'read-write' }),
    {
      samples: {
        remember: [{ title: 'Deploys', body: 'make deploy, then watch the canary' }],
        recall: [{ query: 'deploy' }],
        get_page: [{ pageId: '00000000-0000-4000-8000-000000000000' }],
        forget: [{ pageId: '00000000-0000-4000-8000-000000000000' }],
      },
    },
  );
});
