import { isPlainObject, TOOL_NAME_PATTERN } from '@switchyard/core';
import { z } from 'zod';
import { McpConfigurationError } from './errors/mcp-configuration-error';

/** Options every MCP server accepts, whatever its transport. */
export interface McpServerCommonConfig {
  /** Keep this server's tool schemas behind Tool Search until the model selects them. Default false. */
  deferLoading?: boolean;
  /**
   * `'auto'`: send each tool's schema in strict mode when core can project it (`minLength`,
   * `maxLength` and other keywords strict mode does not take move into descriptions; the server's
   * schema still validates every call); a schema that cannot be strict is sent unchanged, with the
   * reason in the manifest. Default (unset): every schema is sent unchanged.
   */
  strict?: 'auto';
  /** The namespace description the model reads. Default: the server's `instructions`, else its own description. */
  description?: string;
  /** How long each of the start-up handshake and the first tool listing may take, in ms. Default 30000. */
  startupTimeoutMs?: number;
  /** How long one tool call may take before it fails as timed out, in ms. Default 60000. */
  callTimeoutMs?: number;
}

/** A server the worker starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommonConfig {
  /** The executable to run, e.g. `node` or `npx`. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Extra environment variables, added to a small safe default set (HOME, PATH, USER, ...). */
  env?: Record<string, string>;
  /** Its working directory. Default: the worker's. */
  cwd?: string;
}

/** A server reached over streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommonConfig {
  /** The server's MCP endpoint, `http:` or `https:`. */
  url: string;
  /** Headers sent with every request, e.g. `Authorization`. */
  headers?: Record<string, string>;
}

/** One MCP server: `command` for stdio, `url` for streamable HTTP. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A checked server configuration with its defaults filled in. */
export type ResolvedMcpServerConfig =
  | (McpStdioServerConfig & { kind: 'stdio'; startupTimeoutMs: number; callTimeoutMs: number })
  | (McpHttpServerConfig & { kind: 'http'; startupTimeoutMs: number; callTimeoutMs: number });

const timeout = z.number().int().positive().max(2_147_483_647);
const common = {
  deferLoading: z.boolean().optional(),
  strict: z.literal('auto', { error: "must be 'auto' (or left out: schemas sent unchanged)" }).optional(),
  description: z.string().trim().min(1).optional(),
  startupTimeoutMs: timeout.optional(),
  callTimeoutMs: timeout.optional(),
};
const stdioSchema = z.strictObject({
  ...common,
  command: z.string().trim().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});
const httpSchema = z.strictObject({
  ...common,
  url: z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' }),
  headers: z.record(z.string(), z.string()).optional(),
});

function fieldPath(base: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (result, key) => (typeof key === 'number' ? `${result}[${key}]` : `${result}.${String(key)}`),
    base,
  );
}

/**
 * Checks the `servers` option of `connectMcpServers` and fills in defaults.
 *
 * Contract: throws `McpConfigurationError` naming the field (`servers.<name>.<field>`) for a server
 * name that is not a valid namespace (`^[a-zA-Z0-9_-]{1,64}$`), a server with both or neither of
 * `command` and `url`, a wrong type, an unknown field or a non-positive timeout.
 */
export function resolveMcpServersConfig(servers: unknown): Map<string, ResolvedMcpServerConfig> {
  if (!isPlainObject(servers)) {
    throw new McpConfigurationError({
      field: 'servers',
      message: 'must be an object mapping server names to server configurations',
    });
  }
  const resolved = new Map<string, ResolvedMcpServerConfig>();
  for (const [name, config] of Object.entries(servers)) {
    const base = TOOL_NAME_PATTERN.test(name) ? `servers.${name}` : `servers[${JSON.stringify(name)}]`;
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new McpConfigurationError({
        field: base,
        message: `a server name becomes the namespace of its tools, so it must match ${TOOL_NAME_PATTERN} (letters, digits, '_' and '-', 1 to 64 characters)`,
      });
    }
    if (!isPlainObject(config)) {
      throw new McpConfigurationError({ field: base, message: 'must be an object' });
    }
    const hasCommand = config.command !== undefined;
    const hasUrl = config.url !== undefined;
    if (hasCommand === hasUrl) {
      throw new McpConfigurationError({
        field: base,
        message: hasCommand
          ? 'has both command (stdio) and url (streamable HTTP): give one'
          : 'needs either command (a stdio server) or url (a streamable HTTP server)',
      });
    }
    const parsed = (hasCommand ? stdioSchema : httpSchema).safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const keys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
      throw new McpConfigurationError({
        field: fieldPath(base, [...(issue?.path ?? []), ...keys.slice(0, 1)]),
        message:
          issue?.code === 'unrecognized_keys' ? 'is not a known option' : (issue?.message ?? 'is invalid'),
      });
    }
    const defaults = { startupTimeoutMs: 30_000, callTimeoutMs: 60_000 };
    resolved.set(
      name,
      'command' in parsed.data
        ? { kind: 'stdio', ...defaults, ...parsed.data }
        : { kind: 'http', ...defaults, ...parsed.data },
    );
  }
  return resolved;
}
