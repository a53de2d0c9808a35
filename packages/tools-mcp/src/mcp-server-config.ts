import { TOOL_NAME_PATTERN } from '@switchyard/core';
import { isPlainObject } from '@switchyard/core/internal';
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
  /** How long one tool call may go without a result or progress before it fails as timed out, in ms. Default 60000. */
  callTimeoutMs?: number;
  /**
   * How long one tool call may take in all, in ms, whatever progress it reports: then it is cancelled
   * and fails as timed out. Default 300000 (5 minutes).
   */
  callDeadlineMs?: number;
  /**
   * Most bytes of one message from the server: a stdio line, an HTTP response body, one server-sent
   * event. A larger one is refused as it arrives (never held whole). Default 4 MiB.
   */
  maxMessageBytes?: number;
  /** Most pages one `tools/list` may take; the tools of the pages read are kept. Default 32. */
  maxToolListPages?: number;
  /** Most tools taken from the server; later ones are left out. Default 512. */
  maxTools?: number;
  /**
   * Most bytes of tool definitions (names, descriptions, schemas, as received) taken from the server,
   * in list order; a tool that would pass it is left out. Default 256 KiB.
   */
  maxSchemaBytes?: number;
  /**
   * Most bytes one call's result may reach the model with beyond its text (which core cuts to its
   * own limit): images as the data URLs the model receives and every content part's envelope. A
   * larger result becomes an error result. Default 2 MiB.
   */
  maxResultBytes?: number;
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

/** The limits every server has once defaults are filled in. */
export type McpServerLimits = Required<
  Pick<
    McpServerCommonConfig,
    | 'startupTimeoutMs'
    | 'callTimeoutMs'
    | 'callDeadlineMs'
    | 'maxMessageBytes'
    | 'maxToolListPages'
    | 'maxTools'
    | 'maxSchemaBytes'
    | 'maxResultBytes'
  >
>;

/** The defaults of every server's limits (see `McpServerCommonConfig`). */
export const DEFAULT_MCP_SERVER_LIMITS: Readonly<McpServerLimits> = Object.freeze({
  startupTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  callDeadlineMs: 300_000,
  maxMessageBytes: 4 * 1024 * 1024,
  maxToolListPages: 32,
  maxTools: 512,
  maxSchemaBytes: 256 * 1024,
  maxResultBytes: 2 * 1024 * 1024,
});

/** A checked server configuration with its defaults filled in. */
export type ResolvedMcpServerConfig =
  | (McpStdioServerConfig & McpServerLimits & { kind: 'stdio' })
  | (McpHttpServerConfig & McpServerLimits & { kind: 'http' });

const timeout = z.number().int().positive().max(2_147_483_647);
// A message must hold at least a small JSON-RPC answer; 1 GiB is past anything a worker should hold.
const bytes = z
  .number()
  .int()
  .min(1024)
  .max(1024 * 1024 * 1024);
const count = z.number().int().positive().max(1_000_000);
const common = {
  deferLoading: z.boolean().optional(),
  strict: z.literal('auto', { error: "must be 'auto' (or left out: schemas sent unchanged)" }).optional(),
  description: z.string().trim().min(1).optional(),
  startupTimeoutMs: timeout.optional(),
  callTimeoutMs: timeout.optional(),
  callDeadlineMs: timeout.optional(),
  maxMessageBytes: bytes.optional(),
  maxToolListPages: count.optional(),
  maxTools: count.optional(),
  maxSchemaBytes: bytes.optional(),
  maxResultBytes: bytes.optional(),
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
 * `command` and `url`, a wrong type, an unknown field, a non-positive timeout or count, or a byte
 * budget under 1024 or over 1 GiB.
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
    const defaults = { ...DEFAULT_MCP_SERVER_LIMITS };
    resolved.set(
      name,
      'command' in parsed.data
        ? { kind: 'stdio', ...defaults, ...parsed.data }
        : { kind: 'http', ...defaults, ...parsed.data },
    );
  }
  return resolved;
}
