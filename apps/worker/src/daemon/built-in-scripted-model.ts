import {
  type FakeRequest,
  type FakeResponse,
  startFakeResponsesServer,
  toolCallStep,
} from '@switchyard/testkit';
import type { WorkerConfig } from '../config/worker-config';

/** The model name the built-in scripted model answers to (in turn records, spans and the log). */
export const SCRIPTED_MODEL_NAME = 'switchyard-scripted-model';

/** What the log, `/healthz` and the console say while `serve` runs on the built-in scripted model. */
export const SCRIPTED_MODEL_SUMMARY =
  'the built-in scripted model (--scripted-model): every answer is canned, no model reads the prompts, ' +
  'no API key is used. Start serve without it, with a model and its key, for real answers.';

// The prompt is a client's: only this much of it is repeated back.
const MAX_QUOTED_CHARACTERS = 200;

/** The text of the turn's first user message (the prompt), cut to `MAX_QUOTED_CHARACTERS`. */
function promptOf(request: FakeRequest): string {
  const input = request.body.input;
  let prompt = '';
  if (typeof input === 'string') prompt = input;
  else if (Array.isArray(input)) {
    const first = (input as Array<{ role?: unknown; content?: unknown }>).find(
      (item) => item.role === 'user',
    );
    if (typeof first?.content === 'string') prompt = first.content;
    else if (Array.isArray(first?.content)) {
      const part = (first.content as Array<{ text?: unknown }>).find(
        (entry) => typeof entry.text === 'string',
      );
      prompt = String(part?.text ?? '');
    }
  }
  const quoted = prompt.slice(0, MAX_QUOTED_CHARACTERS);
  return quoted.length < prompt.length ? `${quoted}…` : quoted;
}

/**
 * How the built-in scripted model answers a request: a text turn's first request plans with
 * `update_todos` (so the console shows a tool call, its progress and its output); every other
 * request, a task turn's included, is answered with a text that says it is scripted and quotes the
 * prompt.
 */
export function scriptedModelAnswer(request: FakeRequest): FakeResponse {
  const prompt = promptOf(request);
  if (request.functionCallOutputs.length === 0 && request.toolNames.includes('update_todos')) {
    return toolCallStep('update_todos', {
      todos: [{ content: `Answer "${prompt}" (scripted)`, status: 'completed' }],
    });
  }
  return {
    text:
      `This answer comes from Switchyard's built-in scripted model: no model read your prompt ("${prompt}"). ` +
      'Start `switchyard serve` without --scripted-model, with a model and its API key, for real answers.',
    textChunks: 6,
  };
}

/** The built-in scripted model, running: its configuration and how to stop it. */
export interface ScriptedModel {
  /** `config` with its model pointed at the scripted model (name, base URL, a placeholder key, no retries). */
  configure(config: WorkerConfig): WorkerConfig;
  /** Stops its server (after the daemon has stopped). */
  close(): Promise<void>;
}

/**
 * Starts the built-in scripted model for `switchyard serve --scripted-model`: the testkit's fake
 * Responses server on 127.0.0.1 (a random port), answering every request with `scriptedModelAnswer`,
 * so the daemon and its console can be tried with no API key. The requests are not kept (it may run
 * for hours).
 *
 * Contract: the configuration it gives keeps everything but `model`; `close` ends pending answers.
 */
export async function startScriptedModel(): Promise<ScriptedModel> {
  const server = await startFakeResponsesServer({ script: scriptedModelAnswer, record: false });
  return {
    configure: (config) => ({
      ...config,
      model: {
        ...config.model,
        name: SCRIPTED_MODEL_NAME,
        baseURL: server.baseURL,
        apiKey: 'scripted-model-needs-no-key',
        maxRetries: 0,
        chaining: 'stateless',
      },
    }),
    close: () => server.close(),
  };
}
