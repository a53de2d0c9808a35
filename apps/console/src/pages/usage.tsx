import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client';
import { useSession } from '../session';
import { AgentFilter } from '../ui/agent-filter';
import { ErrorAlert } from '../ui/error-alert';
import { formatCount, formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { type Column, TableHead } from '../ui/table-head';
import { useResource } from '../ui/use-resource';

type Usage = Schema<'AgentUsage'>;
type Spend = Usage['tokensLastDay'];

const COLUMNS: Column[] = [
  { label: 'Budget' },
  { label: 'Used', number: true },
  { label: 'Limit', number: true },
  { label: 'Share', number: true },
];

/** One budget's row: what the window used against its limit, flagged once it is reached. */
function SpendRow({ label, spend }: { label: string; spend: Spend }) {
  const share = spend.limit === 0 ? 1 : spend.used / spend.limit;
  return (
    <tr class={share >= 1 ? 'at-limit' : ''}>
      <th scope="row">{label}</th>
      <td class="number">{formatCount(spend.used)}</td>
      <td class="number">{formatCount(spend.limit)}</td>
      <td class="number">
        {Math.round(share * 100)}%{share >= 1 ? ' (at its limit)' : ''}
      </td>
    </tr>
  );
}

/**
 * `#/usage`: what an agent spent and runs now against each of its budgets, the whole fleet's
 * (`GET /v1/agents/{agent}/usage`).
 */
export function UsagePage() {
  const session = useSession();
  const [agent, setAgent] = useState(session.defaultAgent);
  const { value: usage, error } = useResource(
    (signal) => unwrap(api.GET('/v1/agents/{agent}/usage', { params: { path: { agent } }, signal })),
    [agent],
  );

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Usage</h1>
      <div class="filters">
        <AgentFilter value={agent} onChange={setAgent} />
      </div>
      <ErrorAlert error={error} />
      {usage === undefined ? (
        <Loading error={error} />
      ) : (
        <table class="list usage">
          <caption>
            What agent {usage.agent} spent, against its budgets (as of {formatTime(usage.now)})
          </caption>
          <TableHead columns={COLUMNS} />
          <tbody>
            <SpendRow label="Tokens in the last 24 hours" spend={usage.tokensLastDay} />
            <SpendRow label="Turns running at once" spend={usage.turnsAtOnce} />
            <SpendRow label="Schedules created in the last hour" spend={usage.startedLastHour.schedules} />
            <SpendRow label="Schedule fires in the last hour" spend={usage.startedLastHour.scheduleFires} />
            <SpendRow label="Workflows started in the last hour" spend={usage.startedLastHour.workflows} />
            <SpendRow
              label="Background jobs started in the last hour"
              spend={usage.startedLastHour.backgroundJobs}
            />
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Turns waiting for a slot</th>
              <td class="number">{formatCount(usage.turnsWaiting)}</td>
              <td colSpan={2}>each turn may spend {formatCount(usage.tokensPerTurn)} tokens</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
