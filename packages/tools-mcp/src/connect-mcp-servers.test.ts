import { describe, expect, it } from 'vitest';
import { calcStdio } from './__fixtures__/connect-for-suite';
import { connectMcpServers } from './connect-mcp-servers';
import { createMcpTools } from './create-mcp-tools';

describe('servers without tools', () => {
  it('connects a server that offers no tools capability and gives it no tools', async () => {
    const servers = await connectMcpServers({
      servers: {
        empty: calcStdio({ env: { CALC_NO_TOOLS: '1' } }),
      },
    });
    try {
      expect(servers.status('empty')).toBe('connected');
      expect(createMcpTools({ servers })).toEqual([]);
      await servers.refresh();
      expect(createMcpTools({ servers })).toEqual([]);
    } finally {
      await servers.close();
    }
  });

  it('connects no servers at all', async () => {
    const servers = await connectMcpServers({ servers: {} });
    expect(servers.names).toEqual([]);
    expect(createMcpTools({ servers })).toEqual([]);
    await servers.close();
  });
});
