import { useRef, useState } from 'preact/hooks';
import './workflows.css';
import { Link } from 'wouter-preact';
import { ApiError, api, type Schema, unwrap } from '../api/client';
import { useLiveEvents } from '../api/live-events';
import { useCanWrite } from '../session';
import { Collapsed } from '../ui/collapsed';
import { ErrorAlert } from '../ui/error-alert';
import { Fact, Facts } from '../ui/facts';
import { formatJson, formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { useAction } from '../ui/use-action';
import { useResource } from '../ui/use-resource';
import { StatusText } from './status';
import { TaskGraph } from './task-graph';

type Workflow = Schema<'Workflow'>;
type Task = Workflow['tasks'][number];

/**
 * A task's status as the page says it: a task failed without an attempt never ran (a task it
 * depends on failed, or the workflow was stopped first), so it is `not run`, not `failed`.
 */
export function taskStatusWord(task: Pick<Task, 'status' | 'attempts'>): string {
  return task.status === 'failed' && task.attempts === 0 ? 'not run' : task.status;
}

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
  const [turnOf, setTurnOf] = useState<Map<string, string>>(new Map());
  const [selected, setSelected] = useState<string | undefined>();
  const cancelling = useAction();
  const lastShape = useRef('');

  // Polls about every second while the workflow runs.
  const {
    value: workflow,
    error: loadError,
    reload: refreshNow,
    set: setWorkflow,
  } = useResource(
    async (signal) => {
      const next = await unwrap(api.GET('/v1/workflows/{id}', { params: { path: { id } }, signal }));
      // The turns change when a task starts, ends or retries: read them again only then.
      const shape = `${next.id} ${next.tasks.map((task) => `${task.id}:${task.status}:${task.attempts}`).join(',')}`;
      if (shape !== lastShape.current) {
        lastShape.current = shape;
        taskTurns(next).then(
          (found) => !signal.aborted && setTurnOf((known) => new Map([...known, ...found])),
          () => {}, // The links are a convenience; the graph stays without them.
        );
      }
      return next;
    },
    [id],
    {
      repeatAfter: (next) => (next.status === 'running' ? POLL_MS : undefined),
      // A workflow that is not there will not appear; anything else may pass.
      retryAfter: (error) => (error instanceof ApiError && error.status === 404 ? undefined : POLL_MS * 3),
    },
  );

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
      refreshNow();
    },
    onOpen: refreshNow,
  });

  if (workflow === undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Workflow</h1>
        <Loading error={loadError} />
        <ErrorAlert error={loadError} />
      </section>
    );
  }

  const done = workflow.tasks.filter((task) => task.status === 'completed').length;
  const cancel = () =>
    cancelling.run(unwrap(api.POST('/v1/workflows/{id}/cancel', { params: { path: { id } } })), setWorkflow);

  return (
    <section aria-labelledby="page-title" class="workflow">
      <p class="crumbs">
        <Link href="/workflows">Workflows</Link>
      </p>
      <h1 id="page-title">Workflow {workflow.name}</h1>
      <WorkflowFacts workflow={workflow} done={done} />
      {canWrite && workflow.status === 'running' ? (
        <p>
          <button type="button" class="danger" disabled={cancelling.busy} onClick={cancel}>
            Cancel workflow
          </button>
        </p>
      ) : null}
      <ErrorAlert context="Could not cancel: " error={cancelling.error} />
      <ErrorAlert context="Could not refresh: " error={loadError} />
      <WorkflowTasks workflow={workflow} selected={selected} onSelect={setSelected} turnOf={turnOf} />
    </section>
  );
}

/** The workflow's facts: status, agent, progress, times and id. */
function WorkflowFacts({ workflow, done }: { workflow: Workflow; done: number }) {
  return (
    <Facts columns>
      <Fact label="Status">
        <StatusText status={workflow.status} />
      </Fact>
      <Fact label="Agent">{workflow.agent}</Fact>
      <Fact label="Tasks done">
        {done} of {workflow.tasks.length}
      </Fact>
      <Fact label="Started">{formatTime(workflow.createdAt)}</Fact>
      {workflow.finishedAt === null ? null : <Fact label="Finished">{formatTime(workflow.finishedAt)}</Fact>}
      <Fact label="Id">
        <code>{workflow.id}</code>
      </Fact>
    </Facts>
  );
}

/** The task graph (a task chosen in it), the tasks as a list, and the chosen task's details. */
function WorkflowTasks({
  workflow,
  selected,
  onSelect,
  turnOf,
}: {
  workflow: Workflow;
  selected: string | undefined;
  onSelect(id: string): void;
  turnOf: ReadonlyMap<string, string>;
}) {
  const chosen = workflow.tasks.find((task) => task.id === selected);
  return (
    <div class="graph-and-details">
      <div class="graph-pane">
        <TaskGraph
          name={`Task graph of workflow ${workflow.name}`}
          tasks={workflow.tasks.map((task) => ({ ...task, status: taskStatusWord(task) }))}
          selected={selected}
          onSelect={onSelect}
        />
        <h2 class="visually-hidden">Tasks</h2>
        <ul class="task-list" aria-label="Tasks">
          {workflow.tasks.map((task) => (
            <li key={task.id}>
              {task.id}: {taskStatusWord(task)}
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
  );
}

function TaskDetails({ task, turnId }: { task: Task; turnId: string | undefined }) {
  return (
    <>
      <h2>Task {task.id}</h2>
      <Facts columns>
        <Fact label="Status">
          <StatusText status={taskStatusWord(task)} />
        </Fact>
        <Fact label="Attempts">{task.attempts}</Fact>
        <Fact label="Depends on">{task.dependsOn.length === 0 ? 'nothing' : task.dependsOn.join(', ')}</Fact>
        <Fact label="Turn">
          {turnId === undefined ? 'none yet' : <Link href={`/turns/${turnId}`}>Turn of task {task.id}</Link>}
        </Fact>
      </Facts>
      {task.error === null ? null : (
        <>
          <h3>Error</h3>
          <p class="error">{task.error}</p>
        </>
      )}
      {task.result === undefined || task.result === null ? (
        <p>Stored result: none</p>
      ) : (
        <Collapsed summary="Stored result">{formatJson(task.result)}</Collapsed>
      )}
    </>
  );
}
