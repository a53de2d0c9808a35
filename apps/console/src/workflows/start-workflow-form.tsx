import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { ApiError, api, unwrap } from '../api/client';
import { useSession } from '../session';
import { type FieldErrors, sortFieldErrors } from './field-errors';
import { describedBy, FieldMessages } from './field-messages';
import { PasteSpec } from './paste-spec';
import { TaskRowFields } from './task-row-fields';
import { emptyRow, inputKeys, type TaskRow, tasksOfRows } from './task-rows';

/**
 * A fresh `Idempotency-Key`: 128 random bits as hex. `getRandomValues`, since `randomUUID` needs a
 * secure context and a daemon may be reached over plain HTTP on a private network.
 */
function idempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

const NO_ERRORS: FieldErrors = { byInput: new Map(), general: [] };

/** What the daemon refused that no input shows, or a pointer to the messages at the fields. */
function RefusalAlert({ errors }: { errors: FieldErrors }) {
  if (errors.general.length > 0) {
    return (
      <div role="alert" class="error">
        <p>The daemon refused the workflow:</p>
        <ul>
          {errors.general.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      </div>
    );
  }
  return errors.byInput.size > 0 ? (
    <p role="alert" class="error">
      The workflow was not started: see the messages at the fields.
    </p>
  ) : null;
}

/**
 * The form that starts a workflow from a spec (full access only): the agent, a name and the tasks as
 * rows, or a pasted JSON spec loaded into the rows. A 400's messages are shown at the inputs their
 * field paths name; the rest above the form. On success the page moves to the new workflow.
 */
export function StartWorkflowForm() {
  const session = useSession();
  const [, navigate] = useLocation();
  const [agent, setAgent] = useState(session.defaultAgent);
  const [name, setName] = useState('');
  const [rows, setRows] = useState<TaskRow[]>(() => [emptyRow()]);
  const [errors, setErrors] = useState<FieldErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  // One key per workflow the operator means to start: a request retried after a lost answer starts it
  // once. A new key after every answer of the daemon, since the next submission is a new attempt.
  const attempt = useRef(idempotencyKey());

  const update = (index: number, change: Partial<TaskRow>) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...change } : row)));

  const submit = async (event: Event) => {
    event.preventDefault();
    const { tasks, problems } = tasksOfRows(rows);
    if (problems.size > 0) {
      setErrors({ byInput: problems, general: [] });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const started = await unwrap(
        api.POST('/v1/workflows', {
          body: { agent, name: name.trim(), tasks },
          headers: { 'idempotency-key': attempt.current },
        }),
      );
      attempt.current = idempotencyKey();
      navigate(`/workflows/${started.id}`);
    } catch (error) {
      if (error instanceof ApiError) attempt.current = idempotencyKey();
      setErrors(sortFieldErrors(error, inputKeys(rows)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="start-workflow">
      <summary>Start a workflow</summary>
      <form onSubmit={submit} noValidate>
        <RefusalAlert errors={errors} />
        <div class="form-row">
          <label for="start-agent">Agent</label>
          <select
            id="start-agent"
            value={agent}
            onChange={(event) => setAgent(event.currentTarget.value)}
            {...describedBy(errors, 'agent')}
          >
            {session.agents.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <FieldMessages errors={errors} field="agent" />
        </div>
        <div class="form-row">
          <label for="start-name">Workflow name</label>
          <input
            id="start-name"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            {...describedBy(errors, 'name')}
          />
          <FieldMessages errors={errors} field="name" />
        </div>
        <fieldset class="task-rows">
          <legend>Tasks</legend>
          {rows.map((row, index) => (
            <TaskRowFields
              key={row.key}
              row={row}
              index={index}
              errors={errors}
              removable={rows.length > 1}
              onChange={(change) => update(index, change)}
              onRemove={() => setRows((current) => current.filter((_row, at) => at !== index))}
            />
          ))}
          <button type="button" onClick={() => setRows((current) => [...current, emptyRow()])}>
            Add a task
          </button>
        </fieldset>
        <PasteSpec
          onLoad={(spec) => {
            setRows(spec.rows.length === 0 ? [emptyRow()] : spec.rows);
            if (spec.name !== undefined) setName(spec.name);
            if (spec.agent !== undefined && session.agents.includes(spec.agent)) setAgent(spec.agent);
            setErrors(NO_ERRORS);
          }}
        />
        <p>
          <button type="submit" disabled={busy}>
            Start workflow
          </button>
        </p>
      </form>
    </details>
  );
}
