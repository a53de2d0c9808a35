import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probeHealthElsewhere } from './poll-health';

describe('the health probe in a process of its own', () => {
  it("polls each URL's /healthz until stopped and reports each one's latencies and most running turns", async () => {
    const asked = new Map<string, number>();
    const server = createServer((request, response) => {
      const port = request.headers.host ?? '';
      asked.set(port, (asked.get(port) ?? 0) + 1);
      response.setHeader('content-type', 'application/json');
      // The first URL reports 3 running turns, the second 7: the reports keep each URL's own.
      response.end(JSON.stringify({ runningTurns: request.url === '/first/healthz' ? 3 : 7 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const probes = probeHealthElsewhere([`${origin}/first`, `${origin}/second`]);
      await probes.started;
      // The process polls every 50 ms by itself: wait for several answers of this server, not a time.
      const deadline = Date.now() + 60_000;
      while ((asked.get(origin.slice(7)) ?? 0) < 10 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [first, second] = await probes.stop();
      expect(first?.mostRunning).toBe(3);
      expect(second?.mostRunning).toBe(7);
      expect(first?.latencies.length).toBeGreaterThan(1);
      expect(second?.latencies.length).toBeGreaterThan(1);
      for (const latency of [...(first?.latencies ?? []), ...(second?.latencies ?? [])]) {
        expect(latency).toBeGreaterThan(0);
      }
    } finally {
      server.close();
    }
  }, 120_000);
});
