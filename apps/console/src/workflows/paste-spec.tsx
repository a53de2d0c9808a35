import { useState } from 'preact/hooks';
import { errorText } from '../ui/format';
import { rowsOfSpec } from './task-rows';

/**
 * "Paste a JSON spec instead": a text area whose spec (name, agent, tasks) is loaded into the form
 * by `onLoad`; a spec that cannot be read is said under it, and the form is left as it was.
 */
export function PasteSpec({ onLoad }: { onLoad(spec: ReturnType<typeof rowsOfSpec>): void }) {
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string | undefined>();
  return (
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
            onLoad(rowsOfSpec(pasted));
            setPasteError(undefined);
          } catch (error) {
            setPasteError(`Could not read the spec: ${errorText(error)}`);
          }
        }}
      >
        Load into the form
      </button>
    </details>
  );
}
