import { useEffect, useRef, useState } from 'preact/hooks';
import './workflows.css';
import { Link } from 'wouter-preact';
import { ApiError, api, type Schema, unwrap } from '../api/client';
import { useLiveEvents } from '../api/live-events';
import { useCanWrite } from '../session';
import { errorText, formatJson, formatTime } from '../ui/format';
import { StatusText } from './status';
import { TaskGraph } from './task-graph';

type Workflow = Schema<'Workflow'>;
type Task = Workflow['tasks'][number];

const POLL_MS = 1000;

/**
 * The task turns of `workflow`, newest first per task: a task turn's `sourceId` is
 * `<workflowId>/<taskId>`. Reads the agent's 100 most recent task turns, which covers a workflow
 * being watched; an older one's turns may be past that page and then show no link.
 */
async function taskTurns(workflow: Workflow): Promise<Map<string, string>> {
  const { turns } = await unwrap(
    api.GET('/v1/turns', { params: { query: { agent: workflow.agent, source: 'task', limit: 100 } } }),
  );
  const byTask = new Map<string, string>();
  for (const turn of turns) {
    const [workflowId, taskId] = splitSource(turn.sourceId);
    if (workflowId === workflow.id && taskId !== undefined && !byTask.has(taskId))
      byTask.set(taskId, turn.id);
  }
  return byTask;
}

function splitSource(sourceId: string | undefined): [string | undefined, string | undefined] {
  if (sourceId === undefined) return [undefined, undefined];
  const slash = sourceId.indexOf('/');
  return slash === -1 ? [sourceId, undefined] : [sourceId.slice(0, slash), sourceId.slice(slash + 1)];
}

/** `#/workflows/<id>`: the task graph, live while the workflow runs, and the selected task's details. */
export function WorkflowPage({ id }: { id: string }) {
  const canWrite = useCanWrite();
  const [workflow, setWorkflow] = useState<Workflow | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [turnOf, setTurnOf] = useState<Map<string, string>>(new Map());
  const [selected, setSelected] = useState<string | undefined>();
  const [cancelError, setCancelError] = useState<string | undefined>();
  const [cancelling, setCancelling] = useState(false);
  const refreshNow = useRef<() => void>(() => {});

  // Polls about every second while the workflow runs.
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastShape = '';
    const load = async () => {
      clearTimeout(timer);
      try {
        const next = await unwrap(api.GET('/v1/workflows/{id}', { params: { path: { id } } }));
        if (stopped) return;
        setWorkflow(next);
        setLoadError(undefined);
        // The turns change when a task starts, ends or retries: read them again only then.
        const shape = next.tasks.map((task) => `${task.id}:${task.status}:${task.attempts}`).join(',');
        if (shape !== lastShape) {
          lastShape = shape;
          taskTurns(next).then(
            (found) => !stopped && setTurnOf((known) => new Map([...known, ...found])),
            () => {}, // The links are a convenience; the graph stays without them.
          );
        }
        if (next.status === 'running') timer = setTimeout(load, POLL_MS);
      } catch (error) {
        if (stopped) return;
        setLoadError(errorText(error));
        // A workflow that is not there will not appear; anything else may pass.
        if (!(error instanceof ApiError && error.status === 404)) timer = setTimeout(load, POLL_MS * 3);
      }
    };
    refreshNow.current = () => void load();
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);

  // The page's shared `/v1/events` stream: a task turn of this workflow that starts or ends refreshes
  // at once and names that task's turn; a reopened stream may have missed some, so it refreshes too.
  useLiveEvents({
    onEvent: (event) => {
      if (event.type !== 'turn') return;
      const turn = event.data as { id?: string; sourceId?: string };
      const [workflowId, taskId] = splitSource(turn.sourceId);
      if (workflowId !== id || taskId === undefined || turn.id === undefined) return;
      const turnId = turn.id;
      setTurnOf((known) => (known.get(taskId) === turnId ? known : new Map(known).set(taskId, turnId)));
      refreshNow.current();
    },
    onOpen: () => refreshNow.current(),
  });

  if (workflow === undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Workflow</h1>
        {loadError === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <p role="alert" class="error">
            {loadError}
          </p>
        )}
      </section>
    );
  }

  const done = workflow.tasks.filter((task) => task.status === 'completed').length;
  const chosen = workflow.tasks.find((task) => task.id === selected);
  const cancel = async () => {
    setCancelling(true);
    setCancelError(undefined);
    try {
      setWorkflow(await unwrap(api.POST('/v1/workflows/{id}/cancel', { params: { path: { id } } })));
    } catch (error) {
      setCancelError(errorText(error));
    } finally {
      setCancelling(false);
    }
  };

  return (
    <section aria-labelledby="page-title" class="workflow">
      <p class="crumbs">
        <Link href="/workflows">Workflows</Link>
      </p>
      <h1 id="page-title">Workflow {workflow.name}</h1>
      <dl class="wf-facts">
        <dt>Status</dt>
        <dd>
          <StatusText status={workflow.status} />
        </dd>
        <dt>Agent</dt>
        <dd>{workflow.agent}</dd>
        <dt>Tasks done</dt>
        <dd>
          {done} of {workflow.tasks.length}
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(workflow.createdAt)}</dd>
        {workflow.finishedAt === null ? null : (
          <>
            <dt>Finished</dt>
            <dd>{formatTime(workflow.finishedAt)}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{workflow.id}</code>
        </dd>
      </dl>
      {canWrite && workflow.status === 'running' ? (
        <p>
          <button type="button" class="danger" disabled={cancelling} onClick={cancel}>
            Cancel workflow
          </button>
        </p>
      ) : null}
      {cancelError === undefined ? null : (
        <p role="alert" class="error">
          Could not cancel: {cancelError}
        </p>
      )}
      {loadError === undefined ? null : (
        <p role="alert" class="error">
          Could not refresh: {loadError}
        </p>
      )}
      <div class="graph-and-details">
        <div class="graph-pane">
          <TaskGraph
            name={`Task graph of workflow ${workflow.name}`}
            tasks={workflow.tasks}
            selected={selected}
            onSelect={setSelected}
          />
          <h2 class="sr-only">Tasks</h2>
          <ul class="task-list" aria-label="Tasks">
            {workflow.tasks.map((task) => (
              <li key={task.id}>
                {task.id}: {task.status}
                {task.dependsOn.length === 0 ? '' : ` (after ${task.dependsOn.join(', ')})`}
              </li>
            ))}
          </ul>
        </div>
        <aside class="task-details" aria-label="Task details" aria-live="polite">
          {chosen === undefined ? (
            <p class="hint">Select a task in the graph to see its details.</p>
          ) : (
            <TaskDetails task={chosen} turnId={turnOf.get(chosen.id)} />
          )}
        </aside>
      </div>
    </section>
  );
}

function TaskDetails({ task, turnId }: { task: Task; turnId: string | undefined }) {
  return (
    <>
      <h2>Task {task.id}</h2>
      <dl class="wf-facts">
        <dt>Status</dt>
        <dd>
          <StatusText status={task.status} />
        </dd>
        <dt>Attempts</dt>
        <dd>{task.attempts}</dd>
        <dt>Depends on</dt>
        <dd>{task.dependsOn.length === 0 ? 'nothing' : task.dependsOn.join(', ')}</dd>
        <dt>Turn</dt>
        <dd>
          {turnId === undefined ? 'none yet' : <Link href={`/turns/${turnId}`}>Turn of task {task.id}</Link>}
        </dd>
      </dl>
      {task.error === null ? null : (
        <>
          <h3>Error</h3>
          <p class="error">{task.error}</p>
        </>
      )}
      <details>
        <summary>Stored result</summary>
        <pre>{task.result === undefined || task.result === null ? 'none' : formatJson(task.result)}</pre>
      </details>
    </>
  );
}
