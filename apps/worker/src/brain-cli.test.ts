import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorkspace } from './__fixtures__/cli-workspace';

describe('switchyard brain list, show and search (the built CLI, read-only)', () => {
  let workspace: CliWorkspace;
  let checklistId: string;
  let hostileId: string;
  let forgottenId: string;

  beforeAll(async () => {
    workspace = await CliWorkspace.create('brain-cli');
    // Written by one process, then read by the CLI in another: PGlite is single-process.
    await workspace.seed(async (controlPlane) => {
      const brain = controlPlane.brain;
      const checklist = await brain.remember({
        agentId: 'ada',
        title: 'Deploy checklist',
        body: 'Merge to main.',
        tags: ['ops'],
      });
      checklistId = checklist.page.pageId;
      await brain.remember({
        agentId: 'ada',
        title: 'Deploy checklist',
        body: 'Merge to main, then watch the canary for thirty minutes.\n',
        tags: ['ops', 'deploys'],
      });
      hostileId = (
        await brain.remember({
          agentId: 'ada',
          title: 'Terminal \u001b[2Jtricks',
          body: 'red \u001b[31malert\u001b[0m and a carriage\rreturn',
        })
      ).page.pageId;
      forgottenId = (await brain.remember({ agentId: 'ada', title: 'Old office', body: 'Quokka street 1' }))
        .page.pageId;
      await brain.forget({ agentId: 'ada', pageId: forgottenId });
      await brain.remember({ agentId: 'bob', title: 'Canary notes', body: 'bob watches the canary too' });
    });
  }, 180_000);

  afterAll(() => workspace?.remove());

  it("lists an agent's pages, most recent first, and the forgotten ones with --all", async () => {
    const stdout = await workspace.stdoutOf(['brain', 'list', '--agent', 'ada']);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('2 pages of agent ada, most recently written first:');
    expect(lines[1]).toMatch(
      new RegExp(`^- ${hostileId} "Terminal \ufffd\\[2Jtricks" \\(version 1; 40 B; written \\d{4}-`),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^- ${checklistId} "Deploy checklist" \\(version 2, tags: ops, deploys; 57 B; written \\d{4}-`,
      ),
    );
    const all = await workspace.stdoutOf(['brain', 'list', '--agent', 'ada', '--all']);
    expect(all).toMatch(/^3 pages of agent ada/);
    expect(all).toMatch(new RegExp(`- ${forgottenId} "Old office" .*, forgotten \\d{4}-`));
    const none = await workspace.stdoutOf(['brain', 'list', '--agent', 'eve']);
    expect(none).toBe('Agent eve has no pages in its Brain (--all adds forgotten ones).\n');
  });

  it('shows a page with its versions and text, control characters made harmless', async () => {
    const stdout = await workspace.stdoutOf(['brain', 'show', checklistId]);
    expect(stdout).toMatch(
      new RegExp(
        `^Page ${checklistId} of agent ada: "Deploy checklist"\\nversion 2 \\(1 earlier version kept\\), tags: ops, deploys\\nwritten \\d{4}-.*, first written \\d{4}-.*\\nversions:\\n- 1: "Deploy checklist", 14 B, written \\d{4}-.*\\n- 2: "Deploy checklist", 57 B, written \\d{4}-.*\\n\\nMerge to main, then watch the canary for thirty minutes.\\n$`,
      ),
    );
    const hostile = await workspace.stdoutOf(['brain', 'show', hostileId]);
    expect(hostile.includes('\u001b') || hostile.includes('\r')).toBe(false);
    expect(hostile).toContain('red \ufffd[31malert\ufffd[0m and a carriage\ufffdreturn\n');
    const forgotten = await workspace.stdoutOf(['brain', 'show', forgottenId]);
    expect(forgotten).toMatch(/\nforgotten \d{4}-.*: the agent no longer sees it\n/);
  });

  it('refuses an unknown or malformed page id with exit code 1', async () => {
    const unknown = await workspace.run(['brain', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: 'switchyard: brain show: no page 00000000-0000-4000-8000-000000000000\n',
    });
    const malformed = await workspace.run(['brain', 'show', 'p1']);
    expect(malformed).toMatchObject({
      code: 1,
      stderr: 'switchyard: brain show: "p1" is not a page id (a UUID)\n',
    });
  });

  it('searches as recall does, for the agent only, with tags and a limit', async () => {
    const stdout = await workspace.stdoutOf(['brain', 'search', 'canary', '--agent', 'ada']);
    expect(stdout).toMatch(
      new RegExp(
        `^1 page of agent ada for "canary", best first:\\n- ${checklistId} "Deploy checklist" \\(version 2, tags: ops, deploys; every term, rank \\d\\.\\d{3}\\)\\n {2}Merge to main, then watch the canary`,
      ),
    );
    const tagged = await workspace.stdoutOf([
      'brain',
      'search',
      'canary',
      '--agent',
      'ada',
      '--tag',
      'finance',
    ]);
    expect(tagged).toBe('No page of agent ada tagged finance matches "canary".\n');
    const bob = await workspace.stdoutOf(['brain', 'search', 'canary', '--agent', 'bob', '--limit', '1']);
    expect(bob).toMatch(/^1 page of agent bob for "canary"/);
    expect(bob).not.toContain(checklistId);
    const oversize = await workspace.run(['brain', 'search', 'x'.repeat(3000), '--agent', 'ada']);
    expect(oversize).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^switchyard: brain search: query: is 2\.9 KiB/),
    });
  });
});
