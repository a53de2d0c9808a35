import { isOpenAIEndpoint } from '@switchyard/core/internal';
import type { WorkerConfig } from './worker-config';
import { WorkerConfigError, type WorkerConfigIssue } from './worker-config-error';

/** A model endpoint ready for `new OpenAI(...)` and `createResponsesModel(...)`. */
export interface ModelEndpoint {
  /** The model name. */
  model: string;
  /** The base URL; absent: api.openai.com. */
  baseURL: string | undefined;
  /** The API key (a placeholder for a keyless local server). */
  apiKey: string;
}

/**
 * The endpoint a turn talks to, or an error saying exactly which variable to set.
 *
 * Contract: throws `WorkerConfigError` listing every variable to set: `OPENAI_API_KEY` when
 * neither a key nor a base URL is configured (or the base URL is api.openai.com without a key),
 * `SWITCHYARD_MODEL` when no model name is (both when both are missing).
 */
export function resolveModelEndpoint(config: WorkerConfig): ModelEndpoint {
  const { name, baseURL, apiKey } = config.model;
  const where = config.source === undefined ? 'switchyard.config.json' : config.source;
  const openai = isOpenAIEndpoint(baseURL);
  // Every missing setting at once: an operator fixes both in one go.
  const issues: WorkerConfigIssue[] = [];
  if (openai && apiKey === undefined) {
    issues.push({
      field: 'OPENAI_API_KEY',
      message:
        baseURL === undefined
          ? `no model endpoint is configured. Set OPENAI_API_KEY to use api.openai.com, or set OPENAI_BASE_URL (or model.baseURL in ${where}) to an OpenAI-compatible server.`
          : 'is not set: api.openai.com needs an API key. Set OPENAI_API_KEY.',
    });
  }
  if (name === undefined) {
    issues.push({
      field: 'SWITCHYARD_MODEL',
      message: `no model is configured. Set SWITCHYARD_MODEL (or model.name in ${where}), e.g. SWITCHYARD_MODEL=gpt-5.4-mini.`,
    });
  }
  if (issues.length > 0 || name === undefined) throw new WorkerConfigError({ issues });
  // A local OpenAI-compatible server often takes no key; the SDK insists on one.
  return { model: name, baseURL, apiKey: apiKey ?? 'not-set' };
}
