import type { FieldErrors } from './field-errors';
import { describedBy, FieldMessages } from './field-messages';
import type { TaskRow } from './task-rows';

/** What a task row's fields show and report. */
interface TaskRowFieldsProps {
  row: TaskRow;
  /** The row's place in the form (from 0): its inputs' keys and labels say it. */
  index: number;
  errors: FieldErrors;
  /** Whether the row can be removed (not the last one left). */
  removable: boolean;
  onChange(change: Partial<TaskRow>): void;
  onRemove(): void;
}

/** One task of the start form: its id, dependencies, prompt and result schema, each with its messages. */
export function TaskRowFields({ row, index, errors, removable, onChange, onRemove }: TaskRowFieldsProps) {
  const base = `tasks.${index}`;
  const input = (field: string) => `start-task-${row.key}-${field}`;
  const label = `task ${index + 1}`;
  return (
    <fieldset class="task-row">
      <legend>Task {index + 1}</legend>
      <div class="form-row">
        <label for={input('id')}>Id of {label}</label>
        <input
          id={input('id')}
          value={row.id}
          onInput={(event) => onChange({ id: event.currentTarget.value })}
          {...describedBy(errors, `${base}.id`)}
        />
        <FieldMessages errors={errors} field={`${base}.id`} />
      </div>
      <div class="form-row">
        <label for={input('dependsOn')}>Depends on ({label})</label>
        <input
          id={input('dependsOn')}
          value={row.dependsOn}
          placeholder="task ids, comma-separated"
          onInput={(event) => onChange({ dependsOn: event.currentTarget.value })}
          {...describedBy(errors, `${base}.dependsOn`)}
        />
        <FieldMessages errors={errors} field={`${base}.dependsOn`} />
      </div>
      <div class="form-row wide">
        <label for={input('prompt')}>Prompt of {label}</label>
        <textarea
          id={input('prompt')}
          rows={2}
          value={row.prompt}
          onInput={(event) => onChange({ prompt: event.currentTarget.value })}
          {...describedBy(errors, `${base}.prompt`)}
        />
        <FieldMessages errors={errors} field={`${base}.prompt`} />
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
          onInput={(event) => onChange({ resultSchema: event.currentTarget.value })}
          {...describedBy(errors, `${base}.resultSchema`)}
        />
        <FieldMessages errors={errors} field={`${base}.resultSchema`} />
      </details>
      {removable ? (
        <button type="button" onClick={onRemove}>
          Remove {label}
        </button>
      ) : null}
    </fieldset>
  );
}
