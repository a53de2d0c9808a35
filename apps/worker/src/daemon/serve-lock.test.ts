import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { isTaskTurn, outputsOf, promptOf } from '../__fixtures__/scripted-model';
import { summarySchema } from '../__fixtures__/summary-schema';
import { RUNNING_DAEMON_FILE } from '../running-daemon';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';

/** The child processes of `pid` whose command is `name`, read from /proc. */
function childrenOf(pid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid && command === name) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Waits for the daemon to log its lost lock; a timeout shows the log's tail (what it said instead). */
async function waitForLostLock(serve: ServeProcess): Promise<void> {
  try {
    await waitFor(
      'the lost lock in the log',
      () => (serve.log.includes('LOST THE LOCK') ? true : undefined),
      // A safety net: the daemon checks its lock every second, later on a loaded machine.
      90_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the log ends:\n${serve.log.slice(-4000)}`);
  }
}

describe.runIf(process.platform === 'linux')(
  'switchyard serve holds its embedded database with an OS lock',
  () => {
    let folder: ServeFolder;
    let fake: FakeResponsesServer;
    let config: string;
    let dataDir: string;
    const lockInfo = () => path.join(dataDir, 'switchyard.lock');
    const args = () => ['--port', '0', '--config', config];

    beforeAll(async () => {
      folder = await ServeFolder.create('lock', 'pglite');
      dataDir = (folder.databaseSettings as { dataDir: string }).dataDir;
      config = await folder.writeConfig({ categories: { workflow: {} }, serve: { pollSeconds: 0.5 } });
      fake = await folder.startFakeModel({
        script: (request) => {
          if (isTaskTurn(request) && outputsOf(request).length === 0) {
            // A slow task is still running when its process loses the lock: its turn finishes.
            const delayMs = promptOf(request).includes('slow') ? 3_000 : 0;
            return { delayMs, ...toolCallStep('submit_result', { summary: `done: ${promptOf(request)}` }) };
          }
          return { text: 'Done.' };
        },
      });
    }, 120_000);

    afterAll(async () => {
      await folder?.remove();
      await rm(`${dataDir}.moved`, { recursive: true, force: true });
    }, 120_000);

    const start = async (): Promise<{ serve: ServeProcess; url: string }> =>
      folder.startOnFakeModel(fake, args());

    /** Starts a second serve and the CLI on the folder: both must be refused, naming `holder`. */
    async function expectRefused(holder: ServeProcess): Promise<void> {
      const named = `is in use by process ${holder.child.pid} (`;
      const second = folder.start(args(), { OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'fake-model' });
      // Let in, it would listen and never exit: whichever comes first decides.
      const outcome = await Promise.race([
        second.exited.then((code) => ({ exited: code })),
        second.ready.then((url) => ({ listening: url })),
      ]);
      expect(outcome).toEqual({ exited: 1 });
      expect(second.log).toContain(named);
      expect(second.log).not.toContain('listening on');
      // Without the file the daemon writes for the CLI (which reads through its API when it finds
      // it), the CLI opens the database itself: the lock refuses it.
      await rm(path.join(dataDir, RUNNING_DAEMON_FILE), { force: true });
      const listed = await runCli(['turns', 'list', '--config', config], { cwd: folder.path });
      expect(listed.code).toBe(1);
      expect(listed.stderr).toContain(named);
    }

    it('refuses a second serve and the CLI while one holds the folder, whatever becomes of the lock-info file', async () => {
      const { serve: holder, url } = await start();
      expect((await requestJson(`${url}/healthz`)).status).toBe(200);

      await rm(lockInfo());
      await expectRefused(holder);

      await writeFile(lockInfo(), '\u0000{"pid": 1, "host": tor');
      const minuteAgo = new Date(Date.now() - 60_000);
      await utimes(lockInfo(), minuteAgo, minuteAgo);
      await expectRefused(holder);

      // The holder still serves.
      const turn = await requestJson(`${url}/v1/turns`, { body: { prompt: 'still here' } });
      expect(turn.status).toBe(202);

      // A holder killed outright lets the next process in at once: no stale lock to wait out.
      holder.signal('SIGKILL');
      expect(await holder.exited).toBe('SIGKILL');
      const { serve: next, url: nextUrl } = await start();
      expect((await requestJson(`${nextUrl}/healthz`)).status).toBe(200);
      await next.terminate();
    }, 240_000);

    it('stops taking work when its lock process is killed: says so, answers new work 503 and /healthz not ok, claims no queued work', async () => {
      const { serve, url } = await start();
      // It claims queued work while it holds the lock: the first task's turn runs (slowly). The second
      // task is queued only when the first completes, after the loss.
      const workflow = await requestJson(`${url}/v1/workflows`, {
        body: {
          name: 'across the loss',
          tasks: [
            { id: 'a', prompt: 'TASK slow before', resultSchema: summarySchema },
            { id: 'b', prompt: 'TASK after', resultSchema: summarySchema, dependsOn: ['a'] },
          ],
        },
      });
      expect(workflow.status).toBe(201);
      await waitFor('the task turn of the first task', () =>
        fake.requests.find(
          (request) => isTaskTurn(request) && promptOf(request).includes('TASK slow before'),
        ),
      );

      const [lockPid] = childrenOf(serve.child.pid as number, 'flock');
      expect(lockPid).toBeDefined();
      process.kill(lockPid as number, 'SIGKILL');
      await waitForLostLock(serve);
      const line = serve.log.split('\n').find((entry) => entry.includes('LOST THE LOCK')) ?? '';
      expect(line).toContain(
        `on the embedded database ${dataDir}: its lock process ${lockPid} (flock) exited`,
      );

      const refused = await requestJson(`${url}/v1/turns`, { body: { prompt: 'after the loss' } });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: { code: 'lock_lost' } });
      const refusedWorkflow = await requestJson(`${url}/v1/workflows`, {
        body: { name: 'refused', tasks: [{ id: 'a', prompt: 'TASK refused', resultSchema: summarySchema }] },
      });
      expect(refusedWorkflow.status).toBe(503);
      expect(refusedWorkflow.body).toMatchObject({ error: { code: 'lock_lost' } });
      const health = await requestJson(`${url}/healthz`);
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'lock-lost' });

      // The running turn finishes; the task it queues is left to the queue, not claimed here.
      const shown = await waitFor('the first task to complete', async () => {
        const current = await requestJson(`${url}/v1/workflows/${String(workflow.body.id)}`);
        const tasks = current.body.tasks as Array<{ id: string; status: string }>;
        return tasks.find((task) => task.id === 'a')?.status === 'completed' ? tasks : undefined;
      });
      expect(shown.find((task) => task.id === 'b')?.status).toBe('queued');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(fake.requests.some((request) => promptOf(request).includes('TASK after'))).toBe(false);
      const after = await requestJson(`${url}/v1/workflows/${String(workflow.body.id)}`);
      expect(
        (after.body.tasks as Array<{ id: string; status: string }>).find((task) => task.id === 'b')?.status,
      ).toBe('queued');
      expect(await serve.terminate()).toBe(0);
    }, 240_000);

    it('refuses to start where no OS lock can be taken (neither flock(1) nor perl on the PATH), saying so', async () => {
      const environment = { OPENAI_BASE_URL: fake.baseURL, SWITCHYARD_MODEL: 'fake-model' };
      const serve = folder.start(args(), { ...environment, PATH: path.join(folder.path, 'no-such-bin') });
      const outcome = await Promise.race([
        serve.exited.then((code) => ({ exited: code })),
        serve.ready.then((url) => ({ listening: url })),
      ]);
      expect(outcome).toEqual({ exited: 1 });
      expect(serve.log).toContain('neither (flock, perl) is on the PATH');
    }, 120_000);

    it('says the lock is gone when its directory is replaced by another', async () => {
      const { serve, url } = await start();
      await rename(dataDir, `${dataDir}.moved`);
      await mkdir(dataDir);
      await waitForLostLock(serve);
      expect(serve.log).toContain(`${dataDir} was replaced`);
      expect((await requestJson(`${url}/healthz`)).body).toMatchObject({ status: 'lock-lost' });
      serve.signal('SIGKILL');
      await serve.exited;
    }, 240_000);
  },
);
