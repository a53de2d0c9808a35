import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { ApiError, api, type Schema, unwrap } from '../api/client';
import { useSession } from '../session';
import { errorText } from '../ui/format';
import { type FieldErrors, sortFieldErrors } from './field-errors';

type WorkflowRequest = Schema<'WorkflowRequest'>;

/** One task row as typed: text, parsed on submit. */
interface TaskRow {
  /** Stable across edits and removals, for Preact's keys. */
  key: number;
  id: string;
  prompt: string;
  /** Task ids separated by commas or spaces. */
  dependsOn: string;
  /** The result's JSON Schema as JSON text. */
  resultSchema: string;
}

/** The result schema a new row starts with: one required `summary` string (closed, as the daemon wants). */
const SUMMARY_SCHEMA = JSON.stringify(
  {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
    additionalProperties: false,
  },
  null,
  2,
);

/**
 * A fresh `Idempotency-Key`: 128 random bits as hex. `getRandomValues`, since `randomUUID` needs a
 * secure context and a daemon may be reached over plain HTTP on a private network.
 */
function idempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

let nextKey = 0;
function emptyRow(id = ''): TaskRow {
  nextKey += 1;
  return { key: nextKey, id, prompt: '', dependsOn: '', resultSchema: SUMMARY_SCHEMA };
}

const NO_ERRORS: FieldErrors = { byInput: new Map(), general: [] };

/** The keys of the form's inputs, as the daemon's field paths name them (`tasks.2.dependsOn`). */
function inputKeys(rows: readonly TaskRow[]): Set<string> {
  const keys = new Set(['agent', 'name']);
  rows.forEach((_row, index) => {
    for (const field of ['id', 'prompt', 'dependsOn', 'resultSchema']) keys.add(`tasks.${index}.${field}`);
  });
  return keys;
}

/** The rows of a pasted spec, or throws saying what is wrong with it. */
function rowsOfSpec(text: string): { name?: string; agent?: string; rows: TaskRow[] } {
  const spec = JSON.parse(text) as unknown;
  if (typeof spec !== 'object' || spec === null || !Array.isArray((spec as { tasks?: unknown }).tasks)) {
    throw new Error('expected an object with a "tasks" list');
  }
  const { name, agent, tasks } = spec as { name?: unknown; agent?: unknown; tasks: unknown[] };
  const rows = tasks.map((task) => {
    const fields = (typeof task === 'object' && task !== null ? task : {}) as Record<string, unknown>;
    const row = emptyRow(typeof fields.id === 'string' ? fields.id : '');
    row.prompt = typeof fields.prompt === 'string' ? fields.prompt : '';
    row.dependsOn = Array.isArray(fields.dependsOn) ? fields.dependsOn.map(String).join(', ') : '';
    if (fields.resultSchema !== undefined) row.resultSchema = JSON.stringify(fields.resultSchema, null, 2);
    return row;
  });
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof agent === 'string' ? { agent } : {}),
    rows,
  };
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
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string | undefined>();
  // One key per workflow the operator means to start: a request retried after a lost answer starts it
  // once. A new key after every answer of the daemon, since the next submission is a new attempt.
  const attempt = useRef(idempotencyKey());

  const update = (index: number, change: Partial<TaskRow>) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...change } : row)));

  const submit = async (event: Event) => {
    event.preventDefault();
    // The result schemas are JSON text: a row whose text does not parse is named here, before sending.
    const local = new Map<string, string[]>();
    const tasks: WorkflowRequest['tasks'] = rows.map((row, index) => {
      let resultSchema: Record<string, unknown> = {};
      try {
        resultSchema = JSON.parse(row.resultSchema) as Record<string, unknown>;
      } catch (error) {
        local.set(`tasks.${index}.resultSchema`, [`not JSON: ${errorText(error)}`]);
      }
      const dependsOn = row.dependsOn.split(/[\s,]+/).filter((id) => id !== '');
      return {
        id: row.id.trim(),
        prompt: row.prompt,
        resultSchema,
        ...(dependsOn.length === 0 ? {} : { dependsOn }),
      };
    });
    if (local.size > 0) {
      setErrors({ byInput: local, general: [] });
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

  /** The props that tie an input to its messages: `aria-invalid` and `aria-describedby`. */
  const described = (key: string) => {
    const messages = errors.byInput.get(key);
    return messages === undefined
      ? {}
      : { 'aria-invalid': true as const, 'aria-describedby': `${errorId(key)}` };
  };
  const messagesOf = (key: string) => {
    const messages = errors.byInput.get(key);
    return messages === undefined ? null : (
      <span id={errorId(key)} class="field-error error">
        {messages.join(' ')}
      </span>
    );
  };

  return (
    <details class="start-workflow">
      <summary>Start a workflow</summary>
      <form onSubmit={submit} noValidate>
        {errors.general.length === 0 ? null : (
          <div role="alert" class="error">
            <p>The daemon refused the workflow:</p>
            <ul>
              {errors.general.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          </div>
        )}
        {errors.byInput.size > 0 && errors.general.length === 0 ? (
          <p role="alert" class="error">
            The workflow was not started: see the messages at the fields.
          </p>
        ) : null}
        <div class="form-row">
          <label for="start-agent">Agent</label>
          <select
            id="start-agent"
            value={agent}
            onChange={(event) => setAgent(event.currentTarget.value)}
            {...described('agent')}
          >
            {session.agents.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          {messagesOf('agent')}
        </div>
        <div class="form-row">
          <label for="start-name">Workflow name</label>
          <input
            id="start-name"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            {...described('name')}
          />
          {messagesOf('name')}
        </div>
        <fieldset class="task-rows">
          <legend>Tasks</legend>
          {rows.map((row, index) => {
            const base = `tasks.${index}`;
            const input = (field: string) => `start-task-${row.key}-${field}`;
            const label = `task ${index + 1}`;
            return (
              <fieldset key={row.key} class="task-row">
                <legend>Task {index + 1}</legend>
                <div class="form-row">
                  <label for={input('id')}>Id of {label}</label>
                  <input
                    id={input('id')}
                    value={row.id}
                    onInput={(event) => update(index, { id: event.currentTarget.value })}
                    {...described(`${base}.id`)}
                  />
                  {messagesOf(`${base}.id`)}
                </div>
                <div class="form-row">
                  <label for={input('dependsOn')}>Depends on ({label})</label>
                  <input
                    id={input('dependsOn')}
                    value={row.dependsOn}
                    placeholder="task ids, comma-separated"
                    onInput={(event) => update(index, { dependsOn: event.currentTarget.value })}
                    {...described(`${base}.dependsOn`)}
                  />
                  {messagesOf(`${base}.dependsOn`)}
                </div>
                <div class="form-row wide">
                  <label for={input('prompt')}>Prompt of {label}</label>
                  <textarea
                    id={input('prompt')}
                    rows={2}
                    value={row.prompt}
                    onInput={(event) => update(index, { prompt: event.currentTarget.value })}
                    {...described(`${base}.prompt`)}
                  />
                  {messagesOf(`${base}.prompt`)}
                </div>
                <details class="form-row wide" open={errors.byInput.has(`${base}.resultSchema`)}>
                  <summary>Result schema of {label} (JSON Schema)</summary>
                  <label for={input('resultSchema')} class="visually-hidden">
                    Result schema of {label}
                  </label>
                  <textarea
                    id={input('resultSchema')}
                    rows={6}
                    class="code"
                    value={row.resultSchema}
                    onInput={(event) => update(index, { resultSchema: event.currentTarget.value })}
                    {...described(`${base}.resultSchema`)}
                  />
                  {messagesOf(`${base}.resultSchema`)}
                </details>
                {rows.length === 1 ? null : (
                  <button
                    type="button"
                    onClick={() => setRows((current) => current.filter((_row, at) => at !== index))}
                  >
                    Remove {label}
                  </button>
                )}
              </fieldset>
            );
          })}
          <button type="button" onClick={() => setRows((current) => [...current, emptyRow()])}>
            Add a task
          </button>
        </fieldset>
        <details class="paste-spec">
          <summary>Paste a JSON spec instead</summary>
          <label for="start-paste">Workflow spec (JSON: name, tasks)</label>
          <textarea
            id="start-paste"
            rows={8}
            class="code"
            value={pasted}
            onInput={(event) => setPasted(event.currentTarget.value)}
            {...(pasteError === undefined
              ? {}
              : { 'aria-invalid': true as const, 'aria-describedby': 'start-paste-error' })}
          />
          {pasteError === undefined ? null : (
            <span id="start-paste-error" class="field-error error">
              {pasteError}
            </span>
          )}
          <button
            type="button"
            onClick={() => {
              try {
                const spec = rowsOfSpec(pasted);
                setRows(spec.rows.length === 0 ? [emptyRow()] : spec.rows);
                if (spec.name !== undefined) setName(spec.name);
                if (spec.agent !== undefined && session.agents.includes(spec.agent)) setAgent(spec.agent);
                setPasteError(undefined);
                setErrors(NO_ERRORS);
              } catch (error) {
                setPasteError(`Could not read the spec: ${errorText(error)}`);
              }
            }}
          >
            Load into the form
          </button>
        </details>
        <p>
          <button type="submit" disabled={busy}>
            Start workflow
          </button>
        </p>
      </form>
    </details>
  );
}

function errorId(key: string): string {
  return `start-error-${key.replace(/\./g, '-')}`;
}
