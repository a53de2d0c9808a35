import { useState } from 'preact/hooks';
import './workflows.css';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import { useLiveEvents } from '../api/live-events';
import { useCanWrite } from '../session';
import { AgentFilter } from '../ui/agent-filter';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { type Column, TableHead } from '../ui/table-head';
import { useResource } from '../ui/use-resource';
import { StartWorkflowForm } from './start-workflow-form';
import { StatusText } from './status';

type Summary = Schema<'WorkflowSummary'>;

const POLL_MS = 2000;
const COLUMNS: Column[] = [
  { label: 'Name' },
  { label: 'Agent' },
  { label: 'Status' },
  { label: 'Tasks done' },
  { label: 'Started' },
];

/** Tasks done and in all, from a summary's counts by status. */
function progress(summary: Summary): { done: number; total: number } {
  const counts = Object.values(summary.taskCounts);
  return { done: summary.taskCounts.completed ?? 0, total: counts.reduce((sum, count) => sum + count, 0) };
}

/** `#/workflows`: the recent workflows, newest first, refreshed while any of them runs and on task turns. */
export function WorkflowsPage() {
  const [agent, setAgent] = useState('');
  const canWrite = useCanWrite();
  const {
    value: workflows,
    error,
    reload,
  } = useResource(
    async (signal) => {
      const query = agent === '' ? {} : { agent };
      return (await unwrap(api.GET('/v1/workflows', { params: { query }, signal }))).workflows;
    },
    [agent],
    { repeatAfter: (list) => (list.some((workflow) => workflow.status === 'running') ? POLL_MS : undefined) },
  );
  // A task turn that starts or ends anywhere (a workflow started by a model, another console, the
  // CLI) reloads the list at once; a reopened stream may have missed some.
  useLiveEvents({
    onEvent: (event) => {
      if (event.type === 'turn' && (event.data as { source?: string }).source === 'task') reload();
    },
    onOpen: reload,
  });

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Workflows</h1>
      {canWrite ? <StartWorkflowForm /> : null}
      <h2>Recent workflows</h2>
      <div class="filters">
        <AgentFilter label="Filter by agent" value={agent} onChange={setAgent} any="All agents" />
      </div>
      <ErrorAlert error={error} />
      {workflows === undefined ? (
        <Loading error={error} />
      ) : workflows.length === 0 ? (
        <p class="hint">No workflows yet.</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Recent workflows, newest first</caption>
          <TableHead columns={COLUMNS} />
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
