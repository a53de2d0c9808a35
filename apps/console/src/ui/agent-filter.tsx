import type { ComponentProps } from 'preact';
import { useSession } from '../session';
import { SelectFilter } from './select-filter';

/**
 * An agent select: every agent the daemon serves, labelled `Agent` unless `label` says otherwise;
 * `any="All agents"` adds the option for all of them (`''`).
 */
export function AgentFilter(
  props: Omit<ComponentProps<typeof SelectFilter>, 'options' | 'label'> & { label?: string },
) {
  return <SelectFilter label="Agent" {...props} options={useSession().agents} />;
}
