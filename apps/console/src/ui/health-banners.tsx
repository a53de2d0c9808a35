import { api, type Schema } from '../api/client';
import { useResource } from './use-resource';

/** How often the banners ask `/healthz` again, in ms: the daemon checks the sandbox every 30 s. */
const CHECK_EVERY_MS = 30_000;

type Health = Schema<'Health'>;

/**
 * Lines under the navigation, on every page, for what an operator must know of the daemon as a
 * whole (from `/healthz`): that it runs on the built-in scripted model (`switchyard serve
 * --scripted-model`: every answer a turn shows is canned), and that its commands are not sandboxed
 * (`sandbox`: `unsandboxed` where bubblewrap cannot work, or mode `off`), with the daemon's reason.
 * Nothing when neither holds.
 */
export function HealthBanners() {
  const health = useResource<Health | undefined>(
    async (signal) => {
      // A draining daemon answers 503 with the same body: what it says is still worth showing.
      const { data, error } = await api.GET('/healthz', { signal });
      return data ?? (error as Health | undefined);
    },
    [],
    { repeatAfter: () => CHECK_EVERY_MS, retryAfter: () => CHECK_EVERY_MS },
  );
  const scripted = health.value?.scriptedModel;
  const sandbox = health.value?.sandbox;
  const unsandboxed =
    sandbox !== undefined && sandbox.state !== 'sandboxed' && sandbox.state !== 'no-commands';
  return (
    <>
      {/* An <output> is a polite live region (as the pages' stream state): announced when it appears. */}
      {scripted !== undefined && (
        <output class="scripted-model-banner">
          <strong>Scripted model</strong>: {scripted.summary}
        </output>
      )}
      {unsandboxed && (
        <output class="sandbox-banner">
          <strong>Sandbox</strong>: {sandbox.summary}
        </output>
      )}
    </>
  );
}
