import { thrownBy } from '@switchyard/test-support';
import { describe, expect, it } from 'vitest';
import { McpConfigurationError } from './errors/mcp-configuration-error';
import { resolveMcpServersConfig } from './mcp-server-config';

const configurationError = (servers: unknown) =>
  thrownBy(() => resolveMcpServersConfig(servers), McpConfigurationError);

describe('configuration errors', () => {
  it.each([
    ['servers', undefined, 'must be an object'],
    ['servers', [], 'must be an object'],
    ['servers["calc tools"]', { 'calc tools': { command: 'node' } }, 'namespace'],
    ['servers.calc', { calc: 'node calc.mjs' }, 'must be an object'],
    ['servers.calc', { calc: {} }, 'needs either command'],
    ['servers.calc', { calc: { command: 'node', url: 'http://127.0.0.1/mcp' } }, 'has both'],
    ['servers.calc.command', { calc: { command: ' ' } }, ''],
    ['servers.calc.args', { calc: { command: 'node', args: 'calc.mjs' } }, ''],
    ['servers.calc.args[1]', { calc: { command: 'node', args: ['calc.mjs', 3] } }, ''],
    ['servers.calc.env.TOKEN', { calc: { command: 'node', env: { TOKEN: 1 } } }, ''],
    ['servers.calc.deferloading', { calc: { command: 'node', deferloading: true } }, 'not a known option'],
    ['servers.calc.deferLoading', { calc: { command: 'node', deferLoading: 'yes' } }, ''],
    ['servers.calc.callTimeoutMs', { calc: { command: 'node', callTimeoutMs: 0 } }, ''],
    ['servers.calc.strict', { calc: { command: 'node', strict: true } }, "must be 'auto'"],
    ['servers.calc.callDeadlineMs', { calc: { command: 'node', callDeadlineMs: -1 } }, ''],
    ['servers.calc.maxMessageBytes', { calc: { command: 'node', maxMessageBytes: 10 } }, '>=1024'],
    ['servers.calc.maxTools', { calc: { command: 'node', maxTools: 1.5 } }, ''],
    ['servers.calc.maxToolListPages', { calc: { command: 'node', maxToolListPages: 0 } }, ''],
    ['servers.calc.maxSchemaBytes', { calc: { command: 'node', maxSchemaBytes: '1MB' } }, ''],
    ['servers.docs.maxResultBytes', { docs: { url: 'https://e.com/mcp', maxResultBytes: 2 ** 40 } }, ''],
    ['servers.docs.url', { docs: { url: 'ftp://example.com/mcp' } }, 'http: or https:'],
    ['servers.docs.url', { docs: { url: 'not a url' } }, ''],
    [
      'servers.docs.headers.Authorization',
      { docs: { url: 'https://e.com/mcp', headers: { Authorization: null } } },
      '',
    ],
    ['servers.docs.cwd', { docs: { url: 'https://e.com/mcp', cwd: '/' } }, 'not a known option'],
  ])('names the field %s', (field, servers, message) => {
    const error = configurationError(servers);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`Invalid MCP configuration: ${field}: `);
    expect(error.message).toContain(message);
  });

  it('fills in defaults and tells stdio from HTTP servers', () => {
    const resolved = resolveMcpServersConfig({
      calc: { command: 'node', args: ['calc.mjs'] },
      docs: { url: 'https://docs.example.com/mcp', deferLoading: true, callTimeoutMs: 5000 },
    });
    expect([...resolved.keys()]).toEqual(['calc', 'docs']);
    expect(resolved.get('calc')).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['calc.mjs'],
      startupTimeoutMs: 30_000,
      callTimeoutMs: 60_000,
      callDeadlineMs: 300_000,
      maxMessageBytes: 4 * 1024 * 1024,
      maxToolListPages: 32,
      maxTools: 512,
      maxSchemaBytes: 256 * 1024,
      maxResultBytes: 2 * 1024 * 1024,
    });
    expect(resolved.get('docs')).toMatchObject({ kind: 'http', deferLoading: true, callTimeoutMs: 5000 });
  });
});
