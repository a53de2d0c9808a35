import { useSession } from '../session';

/** An agent select: every agent the daemon serves, or all of them. */
export function AgentFilter({
  id,
  value,
  onChange,
  allowAll,
  label = 'Agent',
}: {
  id: string;
  /** The select's label. */
  label?: string;
  value: string;
  onChange: (agent: string) => void;
  allowAll: boolean;
}) {
  const { agents } = useSession();
  return (
    <p class="wf-filter">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {allowAll ? <option value="">All agents</option> : null}
        {agents.map((agent) => (
          <option key={agent} value={agent}>
            {agent}
          </option>
        ))}
      </select>
    </p>
  );
}
