import { api, type Schema } from '../api/client';
import { useResource } from './use-resource';

/** How often the banner asks `/healthz` again, in ms: the daemon checks the sandbox every 30 s. */
const CHECK_EVERY_MS = 30_000;

type SandboxReport = NonNullable<Schema<'Health'>['sandbox']>;

/**
 * A line under the navigation, on every page, while the daemon's commands are not sandboxed
 * (`/healthz`'s `sandbox`: `unsandboxed` where bubblewrap cannot work, or mode `off`), with the
 * daemon's reason. Nothing while they are, or when the daemon runs no commands.
 */
export function SandboxBanner() {
  const health = useResource<SandboxReport | undefined>(
    async (signal) => {
      // A draining daemon answers 503 with the same body: its sandbox is still worth showing.
      const { data, error } = await api.GET('/healthz', { signal });
      return (data ?? (error as Schema<'Health'> | undefined))?.sandbox;
    },
    [],
    { repeatAfter: () => CHECK_EVERY_MS, retryAfter: () => CHECK_EVERY_MS },
  );
  const sandbox = health.value;
  if (sandbox === undefined || sandbox.state === 'sandboxed' || sandbox.state === 'no-commands') return null;
  return (
    // An <output> is a polite live region (as the pages' stream state): announced when it appears.
    <output class="sandbox-banner">
      <strong>Sandbox</strong>: {sandbox.summary}
    </output>
  );
}
