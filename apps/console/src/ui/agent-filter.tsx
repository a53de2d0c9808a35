import { useSession } from '../session';
import { SelectFilter } from './select-filter';

/** An agent select: every agent the daemon serves, and with `allowAll` an `All agents` option (`''`). */
export function AgentFilter({
  value,
  onChange,
  allowAll,
  label = 'Agent',
}: {
  /** The select's label. */
  label?: string;
  /** The chosen agent, `''` for all of them. */
  value: string;
  /** Called with the chosen agent (`''` for all). */
  onChange: (agent: string) => void;
  /** Whether `All agents` is offered. */
  allowAll: boolean;
}) {
  const { agents } = useSession();
  return (
    <SelectFilter
      label={label}
      value={value}
      options={agents}
      any={allowAll ? 'All agents' : undefined}
      onChange={onChange}
    />
  );
}
