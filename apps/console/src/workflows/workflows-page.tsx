import { useEffect, useRef, useState } from 'preact/hooks';
import './workflows.css';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import { useLiveEvents } from '../api/live-events';
import { useCanWrite } from '../session';
import { errorText, formatTime } from '../ui/format';
import { AgentFilter } from './agent-filter';
import { StartWorkflowForm } from './start-workflow-form';
import { StatusText } from './status';

type Summary = Schema<'WorkflowSummary'>;

const POLL_MS = 2000;

/** Tasks done and in all, from a summary's counts by status. */
function progress(summary: Summary): { done: number; total: number } {
  const counts = Object.values(summary.taskCounts);
  return { done: summary.taskCounts.completed ?? 0, total: counts.reduce((sum, count) => sum + count, 0) };
}

/** `#/workflows`: the recent workflows, newest first, refreshed while any of them runs and on task turns. */
export function WorkflowsPage() {
  const [agent, setAgent] = useState('');
  const [workflows, setWorkflows] = useState<Summary[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const canWrite = useCanWrite();

  const reload = useRef<() => void>(() => {});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      clearTimeout(timer);
      try {
        const query = agent === '' ? {} : { agent };
        const list = await unwrap(api.GET('/v1/workflows', { params: { query } }));
        if (stopped) return;
        setWorkflows(list.workflows);
        setError(undefined);
        if (list.workflows.some((workflow) => workflow.status === 'running'))
          timer = setTimeout(load, POLL_MS);
      } catch (caught) {
        if (!stopped) setError(errorText(caught));
      }
    };
    reload.current = () => void load();
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [agent]);
  // A task turn that starts or ends anywhere (a workflow started by a model, another console, the
  // CLI) reloads the list at once; a reopened stream may have missed some.
  useLiveEvents({
    onEvent: (event) => {
      if (event.type === 'turn' && (event.data as { source?: string }).source === 'task') reload.current();
    },
    onOpen: () => reload.current(),
  });

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Workflows</h1>
      {canWrite ? <StartWorkflowForm /> : null}
      <h2>Recent workflows</h2>
      <AgentFilter
        id="workflows-agent"
        label="Filter by agent"
        value={agent}
        onChange={setAgent}
        allowAll={true}
      />
      {error === undefined ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {workflows === undefined ? (
        error === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : null
      ) : workflows.length === 0 ? (
        <p class="hint">No workflows yet.</p>
      ) : (
        <table class="list">
          <caption class="sr-only">Recent workflows, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Agent</th>
              <th scope="col">Status</th>
              <th scope="col">Tasks done</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {workflows.map((workflow) => {
              const { done, total } = progress(workflow);
              return (
                <tr key={workflow.id}>
                  <td>
                    <Link href={`/workflows/${workflow.id}`}>{workflow.name}</Link>
                  </td>
                  <td>{workflow.agent}</td>
                  <td>
                    <StatusText status={workflow.status} />
                  </td>
                  <td>
                    {done} / {total}
                  </td>
                  <td>{formatTime(workflow.createdAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
