import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postgresTitle, postgresUrl } from '@switchyard/test-databases';
import { type FakeResponsesServer, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputsOf, promptOf } from '../__fixtures__/scripted-model';
import { summaryTask } from '../__fixtures__/summary-schema';
import { waitFor, waitForTurnEnd } from '../daemon/__fixtures__/http-client';
import { ServeFolder } from '../daemon/__fixtures__/serve-folder';

const AGENT = 'fleet';
const TASKS = ['alpha', 'beta', 'gamma'];
const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const CALLER_SPAN_ID = 'eee19b7ec3c1b174';

/** OTLP/JSON as the standard HTTP exporters send it (ids in hex). */
interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface ReceivedSpan extends OtlpSpan {
  resource: Record<string, unknown>;
  attribute: Record<string, unknown>;
}

function flatten(attributes: readonly OtlpAttribute[] | undefined): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    flat[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  }
  return flat;
}

/** An OTLP/HTTP receiver on 127.0.0.1: keeps every span and every metric name it is sent. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly metricNames = new Set<string>();
  readonly contentTypes = new Set<string>();
  #server: Server | undefined;

  async start(): Promise<string> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.contentTypes.add(String(request.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        if (request.url === '/v1/traces') this.#traces(body);
        if (request.url === '/v1/metrics') this.#metrics(body);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  #traces(body: Record<string, unknown>): void {
    const resourceSpans = body.resourceSpans as Array<{
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans: Array<{ spans: OtlpSpan[] }>;
    }>;
    for (const entry of resourceSpans) {
      const resource = flatten(entry.resource?.attributes);
      for (const scope of entry.scopeSpans) {
        for (const span of scope.spans)
          this.spans.push({ ...span, resource, attribute: flatten(span.attributes) });
      }
    }
  }

  #metrics(body: Record<string, unknown>): void {
    const resourceMetrics = body.resourceMetrics as Array<{
      scopeMetrics: Array<{ metrics: Array<{ name: string }> }>;
    }>;
    for (const entry of resourceMetrics) {
      for (const scope of entry.scopeMetrics)
        for (const metric of scope.metrics) this.metricNames.add(metric.name);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) =>
      this.#server === undefined ? resolve() : this.#server.close(() => resolve()),
    );
  }
}

describe.runIf(postgresUrl !== null)(`${postgresTitle}: serve exports its spans over OTLP/HTTP`, () => {
  let folder: ServeFolder;
  let fake: FakeResponsesServer;
  const receiver = new OtlpReceiver();

  beforeAll(async () => {
    folder = await ServeFolder.create('otlp', 'postgres');
    fake = await folder.startFakeModel({
      script: (request) => {
        const prompt = promptOf(request);
        const outputs = outputsOf(request);
        if (prompt.startsWith('TASK ')) {
          // Each task turn holds its first request long enough that one process (two task turns at a
          // time) cannot take all three: the other one runs at least one.
          if (outputs.length === 0) {
            return { delayMs: 2_500, ...toolCallStep('submit_result', { summary: `${prompt} done` }) };
          }
          return { text: 'stored' };
        }
        if (outputs.length > 0) return { text: 'The workflow is running.' };
        return toolCallStep('workflow', {
          name: 'release',
          tasks: TASKS.map((id) => summaryTask(id, `TASK ${id}`)),
        });
      },
    });
  }, 120_000);

  afterAll(async () => {
    await folder?.remove(20_000);
    await receiver.close();
  }, 120_000);

  it("puts the API request, its turn and every task turn of its workflow, from two processes, in the caller's trace", async () => {
    const endpoint = await receiver.start();
    const config = await folder.writeConfig({
      categories: { workflow: {} },
      serve: { agents: [AGENT], port: 0, pollSeconds: 0.5, graceMs: 500 },
    });
    const environment = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'test',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    };
    const first = folder.start(['--config', config], environment, { cwd: folder.path });
    const second = folder.start(['--config', config], environment, { cwd: folder.path });
    const url = await first.ready;
    await second.ready;
    expect(first.log).toContain(`OpenTelemetry export to ${endpoint}/v1/traces`);

    const response = await fetch(`${url}/v1/turns`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
      },
      body: JSON.stringify({ prompt: 'plan the release', agent: AGENT }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await waitForTurnEnd(url, id);
    const taskTurns = () =>
      receiver.spans.filter(
        (span) =>
          span.name === `invoke_agent ${AGENT}` && span.attribute['switchyard.turn.source'] === 'task',
      );
    await waitFor(
      'three task turns exported',
      () => (taskTurns().length >= TASKS.length ? true : undefined),
      90_000,
    );

    const ours = receiver.spans.filter((span) => span.traceId === TRACE_ID);
    const server = ours.find((span) => span.name === 'POST /v1/turns');
    expect(server?.parentSpanId).toBe(CALLER_SPAN_ID);
    expect(server?.kind).toBe(2); // SERVER
    const apiTurn = ours.find(
      (span) => span.name === `invoke_agent ${AGENT}` && span.attribute['switchyard.turn.source'] === 'api',
    );
    expect(apiTurn?.parentSpanId).toBe(server?.spanId);
    expect(apiTurn?.attribute).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': AGENT,
      'gen_ai.request.model': 'fake-model',
      'switchyard.turn.status': 'completed',
    });
    const workflowCall = ours.find((span) => span.name === 'execute_tool workflow');
    expect(workflowCall?.parentSpanId).toBe(apiTurn?.spanId);
    expect(workflowCall?.attribute['switchyard.tool.outcome']).toBe('completed');

    const tasks = taskTurns();
    expect(tasks).toHaveLength(TASKS.length);
    for (const task of tasks) {
      // Joined across the control plane: same trace, child of the call that started the workflow.
      expect(task.traceId).toBe(TRACE_ID);
      expect(task.parentSpanId).toBe(workflowCall?.spanId);
      expect(task.resource['service.name']).toBe('switchyard-worker');
      const submit = ours.find(
        (span) => span.parentSpanId === task.spanId && span.name === 'execute_tool submit_result',
      );
      expect(submit?.attribute['switchyard.tool.outcome']).toBe('completed');
    }
    // Both processes ran task turns.
    const pids = new Set(tasks.map((task) => task.resource['process.pid']));
    expect(pids).toEqual(new Set([first.child.pid, second.child.pid]));

    await waitFor('core and daemon metrics exported', () =>
      receiver.metricNames.has('switchyard.turn.duration') &&
      receiver.metricNames.has('gen_ai.client.token.usage')
        ? true
        : undefined,
    );
    expect([...receiver.contentTypes]).toContain('application/json');
  }, 180_000);
});
