import { useState } from 'preact/hooks';
import './schedules.css';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import { useSession } from '../session';
import { AgentFilter } from '../ui/agent-filter';
import { Collapsed } from '../ui/collapsed';
import { ErrorAlert } from '../ui/error-alert';
import { Fact, Facts } from '../ui/facts';
import { formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { TableHead } from '../ui/table-head';
import { useResource } from '../ui/use-resource';
import { browserTimeZone } from '../workflows/browser-time-zone';
import { StatusText } from '../workflows/status';

type Schedule = Schema<'Schedule'>;

/** A run enqueued this long after its slot was late (missed while no process ran): its slot is shown. */
const LATE_MS = 60_000;

/** `#/schedules`: an agent's schedules, their next fire times in the operator's zone and past runs. */
export function SchedulesPage() {
  const session = useSession();
  const [agent, setAgent] = useState(session.defaultAgent);
  const [all, setAll] = useState(false);
  const zone = browserTimeZone();
  const { value: schedules, error } = useResource(
    async (signal) => {
      const query = { agent, ...(all ? { all: 'true' as const } : {}) };
      return (await unwrap(api.GET('/v1/schedules', { params: { query }, signal }))).items;
    },
    [agent, all],
  );

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Schedules</h1>
      <div class="filters">
        <AgentFilter value={agent} onChange={setAgent} />
        <label class="filter">
          <input type="checkbox" checked={all} onChange={(event) => setAll(event.currentTarget.checked)} />
          Include ended and cancelled schedules
        </label>
      </div>
      <p class="hint">Times are shown in your time zone, {zone}.</p>
      <ErrorAlert error={error} />
      {schedules === undefined ? (
        <Loading error={error} />
      ) : schedules.length === 0 ? (
        <p class="hint">Agent {agent} has no schedules.</p>
      ) : (
        <ul class="schedules">
          {schedules.map((schedule) => (
            <li key={schedule.id}>
              <ScheduleCard schedule={schedule} zone={zone} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ScheduleCard({ schedule, zone }: { schedule: Schedule; zone: string }) {
  const headingId = `schedule-${schedule.id}`;
  return (
    <article class="schedule" aria-labelledby={headingId}>
      <h2 id={headingId}>{schedule.name}</h2>
      <Facts columns>
        <Fact label="Status">
          <StatusText status={schedule.status} />
        </Fact>
        <Fact label="Rule">
          {schedule.kind === 'cron' ? (
            <>
              cron <code>{schedule.cron}</code>
            </>
          ) : (
            `once, at ${schedule.runAt === undefined ? 'an unknown time' : formatTime(schedule.runAt)} (${zone})`
          )}
        </Fact>
        <Fact label="Rule's time zone">{schedule.timeZone}</Fact>
        <Fact label={`Next fire times (${zone})`}>
          {schedule.nextFireTimes.length === 0 ? (
            'none'
          ) : (
            <ul class="plain">
              {schedule.nextFireTimes.map((time) => (
                <li key={time}>
                  <time dateTime={time}>{formatTime(time)}</time>
                </li>
              ))}
            </ul>
          )}
        </Fact>
      </Facts>
      <Collapsed summary="Prompt">{schedule.prompt}</Collapsed>
      {schedule.runs.length === 0 ? (
        <p class="hint">No runs yet.</p>
      ) : (
        <table class="list">
          <caption>Past runs of {schedule.name}</caption>
          <TableHead
            columns={[
              { label: `Fired (${zone})` },
              { label: `Slot (${zone})` },
              { label: 'Status' },
              { label: 'Turn' },
            ]}
          />
          <tbody>
            {schedule.runs.map((run) => (
              <tr key={`${run.firedAt}-${run.turnId ?? ''}`}>
                <td>
                  <time dateTime={run.firedAt}>{formatTime(run.firedAt)}</time>
                </td>
                <td>
                  {Date.parse(run.firedAt) - Date.parse(run.slot) < LATE_MS ? (
                    'on time'
                  ) : (
                    <time dateTime={run.slot}>{formatTime(run.slot)}</time>
                  )}
                </td>
                <td>
                  <StatusText status={run.status} />
                  {run.error === undefined ? null : <span class="error"> {run.error}</span>}
                </td>
                <td>
                  {run.turnId === undefined ? (
                    'none'
                  ) : (
                    <Link href={`/turns/${run.turnId}`}>Turn of {formatTime(run.firedAt)}</Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
