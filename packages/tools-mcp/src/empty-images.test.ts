// An image with no data from a real stdio server: an empty `input_image` is refused by the API (400),
// and a stateless transcript would repeat the refusal on every later request of the turn.

import { describe, expect, it } from 'vitest';
import { calcStdio, connectForSuite } from './__fixtures__/connect-for-suite';
import { runOnFakeModel } from './__fixtures__/run-on-fake-model';
import { CALL_CONTEXT, resultText } from './__fixtures__/tool-call';
import { createMcpTools } from './create-mcp-tools';

const suite = connectForSuite({ calc: calcStdio() });

describe('an image with no data', () => {
  it('becomes a text placeholder saying so, never an empty image part', async () => {
    const result = await suite.tool('empty_images').execute({}, CALL_CONTEXT);
    expect(result.isError).toBeUndefined();
    expect(Array.isArray(result.content) && result.content.map((part) => part.type)).toEqual([
      'text',
      'image',
      'text',
      'text',
    ]);
    expect(resultText(result, (part) => `<${part.type === 'image' ? part.mimeType : ''}>`)).toBe(
      [
        '[image (image/png) omitted: it was empty]',
        '<image/png>',
        '[image resource file:///empty.webp (image/webp) omitted: it was empty]',
        '[image (image/svg+xml) omitted: it was empty]',
      ].join('\n'),
    );
  });

  it('reaches the next model request as text, with no input_image lacking data', async () => {
    const script = [
      { functionCalls: [{ name: 'empty_images', namespace: 'calc', arguments: {}, callId: 'c1' }] },
      { text: 'seen' },
      { text: 'and again' },
    ];
    const tools = createMcpTools({ servers: suite.servers });
    await runOnFakeModel({ script, tools, input: 'Show the images.' }, async ({ run, fake }) => {
      expect((await run.result()).status).toBe('completed');
      const output = fake.requests[1]?.functionCallOutputs[0]?.output as Array<Record<string, unknown>>;
      const images = output.filter((part) => part.type === 'input_image');
      expect(images).toHaveLength(1);
      expect(images[0]?.image_url).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(output.filter((part) => part.type === 'input_text').map((part) => part.text)).toContain(
        '[image (image/png) omitted: it was empty]',
      );
    });
  });
});
