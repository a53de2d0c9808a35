/**
 * A labelled `<select>` that narrows what a page lists. The label wraps the select, so its text is the
 * select's accessible name. `any` (`All agents`, `Any status`) adds a first option with the value `''`,
 * meaning no filter; without it one of `options` is always chosen.
 */
export function SelectFilter({
  label,
  value,
  options,
  any,
  onChange,
}: {
  /** The select's label and accessible name. */
  label: string;
  /** The chosen option, `''` for `any`. */
  value: string;
  /** The values to choose from, each shown as itself. */
  options: readonly string[];
  /** The text of the no-filter option; none when undefined. */
  any?: string | undefined;
  /** Called with the chosen value (`''` for `any`). */
  onChange: (value: string) => void;
}) {
  return (
    <label class="filter">
      {label}
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {any === undefined ? null : <option value="">{any}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
