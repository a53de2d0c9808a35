import type { spawn } from 'node:child_process';

/** The `spawn` the command tool uses: `node:child_process`'s, or a wrapper with the same signature. */
export type SpawnFunction = typeof spawn;

/** Limits of the computer tools. Every field is optional; defaults are given per field. */
export interface ComputerToolsLimits {
  /** `run_command` timeout when the call gives none. Default 60 000 ms. */
  defaultTimeoutMs?: number;
  /** The largest `timeout_ms` a call may ask for (larger values are lowered to it). Default 600 000 ms. */
  maxTimeoutMs?: number;
  /** After SIGTERM, how long a command's processes get before SIGKILL. Default 2 000 ms. */
  killGraceMs?: number;
  /** Command output above this many bytes keeps only its head and tail. Default 16 384 (16 KiB). */
  maxOutputBytes?: number;
  /** Cut command output is saved in the home up to this many bytes. Default 67 108 864 (64 MiB). */
  maxSavedOutputBytes?: number;
  /**
   * Saved outputs kept in `.switchyard/command-output/` of the home: saving another removes the
   * oldest beyond this many. Default 20.
   */
  maxSavedOutputs?: number;
  /**
   * Processes and threads a sandboxed command may run at once (the kernel refuses more: `RLIMIT_NPROC`
   * in the command's user namespace, or a `pids` cgroup for a root worker); reaching it ends the
   * command ("killed: process limit 512"). Default 512.
   */
  maxProcesses?: number;
  /**
   * Memory of a sandboxed command: its processes' private memory plus what it keeps in its `/tmp` and
   * `/dev/shm` (each a tmpfs of this size; each process's data segment is limited to it too, so an
   * allocation past it fails). Going over it ends the command ("killed: memory limit 1 GiB").
   * Default 1 073 741 824 (1 GiB); at least 33 554 432 (32 MiB).
   */
  maxMemoryBytes?: number;
  /** CPU time of a sandboxed command, all its processes together, in seconds; going over it ends the command. Default 600. */
  maxCpuSeconds?: number;
  /** Open files per process of a sandboxed command (`RLIMIT_NOFILE`). Default 4 096. */
  maxOpenFiles?: number;
  /**
   * The home's disk quota: a sandboxed command that writes more than the room left ends ("killed: disk
   * quota"), and `write_file`/`edit_file` refuse to grow a home that is over it. Default 2 147 483 648 (2 GiB).
   */
  maxHomeBytes?: number;
  /** `read_file`, `edit_file` and `search_files` refuse (or skip) files larger than this. Default 10 MiB. */
  maxFileBytes?: number;
  /** Lines `read_file` returns when the call gives no `limit`, and the most it returns. Default 2 000. */
  maxReadLines?: number;
  /** The most text `read_file` returns in one call (it stops at a line boundary). Default 65 536 (64 KiB). */
  maxReadBytes?: number;
  /** A line `read_file` or `search_files` shows longer than this is cut. Default 2 000 characters. */
  maxLineLength?: number;
  /** The most entries `list_files` returns. Default 1 000. */
  maxListEntries?: number;
  /** The most matching lines `search_files` returns. Default 200. */
  maxSearchMatches?: number;
  /** How long one `search_files` call may take; its regular expression runs off the main thread and is stopped then. Default 10 000 ms. */
  searchTimeoutMs?: number;
  /** The most directory entries `list_files` or `search_files` visits in one call. Default 100 000. */
  maxWalkEntries?: number;
}

/**
 * When commands run in the sandbox: `auto` when bubblewrap works here (else without one, and
 * `checkSandbox` says why), `required` (creating the tools fails without it), `off` (never).
 */
export type SandboxMode = 'auto' | 'required' | 'off';

/** The network a sandboxed command gets: `none` (an empty network namespace) or `host` (the worker's). */
export type SandboxNetwork = 'none' | 'host';

/** How `run_command` confines commands (Linux, bubblewrap). */
export interface ComputerSandboxOptions {
  /** When to sandbox. Default `auto`. */
  mode?: SandboxMode;
  /**
   * The sandbox's network. Default `none`: no interface but an isolated loopback, so a command
   * reaches neither the internet nor the worker's loopback services (its database, its HTTP API).
   */
  network?: SandboxNetwork;
  /**
   * Absolute paths commands must not see even where they lie inside what the sandbox shows (the
   * home, `readOnlyPaths`, the folders on the commands' `PATH`): an empty folder, or an empty file,
   * is mounted over each. Paths outside those are not visible anyway.
   */
  hiddenPaths?: readonly string[];
  /**
   * Absolute host paths commands may read (mounted read-only) besides what the sandbox always shows:
   * the system folders (`/usr` and its links), a minimal `/etc`, the home and the folders on the
   * commands' `PATH`. Default `[]`.
   */
  readOnlyPaths?: readonly string[];
  /** The bubblewrap binary. Default: `bwrap` found on the worker's `PATH`. */
  bwrapPath?: string;
}

/** What `createComputerTools` needs. */
export interface ComputerToolsContext {
  /** The agent's home directory: the working directory of commands and the confine of file tools. */
  home: string;
  /**
   * Names of variables of the worker's environment that commands may also see, added to the
   * allowlist (`PATH`, `LANG`, `TERM`; `HOME` is always the agent home). A secret-looking name
   * (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH, ...) is refused at creation.
   */
  env?: readonly string[];
  /** The environment the allowlist picks from. Default `process.env`. */
  sourceEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Directories put first on the commands' `PATH`. Default: the folder holding this package's
   * `mcporter` binary, so `mcporter call ...` works offline. The running `node`'s folder is always
   * appended last when missing.
   */
  pathPrepend?: readonly string[];
  /** Limits; see `ComputerToolsLimits` for the defaults. */
  limits?: ComputerToolsLimits;
  /** Spawns commands (`bash`, or `bwrap` around it in the sandbox). Default `node:child_process` `spawn`. */
  spawn?: SpawnFunction;
  /**
   * The command sandbox: a mode (`'auto'`, `'required'`, `'off'`) or the full options. Default
   * `'auto'` with network `none`. See the README's security model.
   */
  sandbox?: SandboxMode | ComputerSandboxOptions;
}
