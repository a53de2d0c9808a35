import { api, type Schema } from '../api/client';
import { useResource } from './use-resource';

/** How long after a failed `/healthz` the banner asks again, in ms. */
const RETRY_AFTER_MS = 10_000;

type ScriptedModelReport = NonNullable<Schema<'Health'>['scriptedModel']>;

/**
 * A line under the navigation, on every page, while the daemon runs on the built-in scripted model
 * (`switchyard serve --scripted-model`, `/healthz`'s `scriptedModel`): every answer a turn shows is
 * canned. Asked once (again after a failure only): the model cannot change while the daemon runs.
 */
export function ScriptedModelBanner() {
  const health = useResource<ScriptedModelReport | undefined>(
    async (signal) => {
      // A draining daemon answers 503 with the same body.
      const { data, error } = await api.GET('/healthz', { signal });
      return (data ?? (error as Schema<'Health'> | undefined))?.scriptedModel;
    },
    [],
    { retryAfter: () => RETRY_AFTER_MS },
  );
  const scripted = health.value;
  if (scripted === undefined) return null;
  return (
    // An <output> is a polite live region: announced when it appears.
    <output class="scripted-model-banner">
      <strong>Scripted model</strong>: {scripted.summary}
    </output>
  );
}
