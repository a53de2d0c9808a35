import { Link } from 'wouter-preact';
import type { Schema } from '../api/client';

type Turn = Pick<Schema<'Turn'>, 'source' | 'sourceId' | 'origin'>;

/**
 * Where a turn came from, named and linked: `task` with its workflow's name (linked to the workflow)
 * and its task id; `schedule` with the schedule's name and id; `job` with its id; `api`. A task or
 * job started by another turn's tool call links that turn (`from turn <id>`). A turn whose source is
 * not named (the live feed's, an older record) shows its source id.
 */
export function TurnSource({ turn }: { turn: Turn }) {
  const { origin } = turn;
  const parent =
    origin?.parentTurnId === undefined ? null : (
      <>
        {' '}
        from turn <Link href={`/turns/${origin.parentTurnId}`}>{origin.parentTurnId}</Link>
      </>
    );
  if (turn.source === 'task' && origin?.workflow !== undefined) {
    return (
      <>
        task <Link href={`/workflows/${origin.workflow.id}`}>{origin.workflow.name}</Link> / {origin.taskId}
        {parent}
      </>
    );
  }
  if (turn.source === 'schedule' && origin?.schedule !== undefined) {
    return (
      <>
        schedule <Link href="/schedules">{origin.schedule.name}</Link>{' '}
        <span class="id">({origin.schedule.id})</span>
      </>
    );
  }
  return (
    <>
      {turn.sourceId === undefined ? turn.source : `${turn.source} ${turn.sourceId}`}
      {parent}
    </>
  );
}
