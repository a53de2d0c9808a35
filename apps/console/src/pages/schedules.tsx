import { useEffect, useState } from 'preact/hooks';
import '../workflows/workflows.css';
import './schedules.css';
import { Link } from 'wouter-preact';
import { api, type Schema, unwrap } from '../api/client';
import { useSession } from '../session';
import { errorText, formatTime } from '../ui/format';
import { AgentFilter } from '../workflows/agent-filter';
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
  const [schedules, setSchedules] = useState<Schedule[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const zone = browserTimeZone();

  useEffect(() => {
    const controller = new AbortController();
    setSchedules(undefined);
    setError(undefined);
    const query = { agent, ...(all ? { all: 'true' as const } : {}) };
    unwrap(api.GET('/v1/schedules', { params: { query }, signal: controller.signal })).then(
      (answer) => setSchedules(answer.items),
      (caught: unknown) => !controller.signal.aborted && setError(errorText(caught)),
    );
    return () => controller.abort();
  }, [agent, all]);

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Schedules</h1>
      <div class="wf-filters">
        <AgentFilter id="schedules-agent" value={agent} onChange={setAgent} allowAll={false} />
        <p class="wf-filter">
          <input
            id="schedules-all"
            type="checkbox"
            checked={all}
            onChange={(event) => setAll(event.currentTarget.checked)}
          />
          <label for="schedules-all">Include ended and cancelled schedules</label>
        </p>
      </div>
      <p class="hint">Times are shown in your time zone, {zone}.</p>
      {error === undefined ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {schedules === undefined ? (
        error === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : null
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
      <dl class="wf-facts">
        <dt>Status</dt>
        <dd>
          <StatusText status={schedule.status} />
        </dd>
        <dt>Rule</dt>
        <dd>
          {schedule.kind === 'cron' ? (
            <>
              cron <code>{schedule.cron}</code>
            </>
          ) : (
            `once, at ${schedule.runAt === undefined ? 'an unknown time' : formatTime(schedule.runAt)} (${zone})`
          )}
        </dd>
        <dt>Rule's time zone</dt>
        <dd>{schedule.timeZone}</dd>
        <dt>Next fire times ({zone})</dt>
        <dd>
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
        </dd>
      </dl>
      <details>
        <summary>Prompt</summary>
        <pre>{schedule.prompt}</pre>
      </details>
      {schedule.runs.length === 0 ? (
        <p class="hint">No runs yet.</p>
      ) : (
        <table class="list">
          <caption>Past runs of {schedule.name}</caption>
          <thead>
            <tr>
              <th scope="col">Fired ({zone})</th>
              <th scope="col">Slot ({zone})</th>
              <th scope="col">Status</th>
              <th scope="col">Turn</th>
            </tr>
          </thead>
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
