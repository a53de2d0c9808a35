/** The sandbox's init reports to the worker on this file descriptor (see `SANDBOX_INIT_SCRIPT`). */
export const REPORT_FD = 3;
/** bubblewrap writes `{"child-pid": N}` here: the sandbox's init, as the worker's PID namespace numbers it. */
export const INFO_FD = 4;
/** bubblewrap reads the seccomp filter from here (`--seccomp`), and closes it. */
export const SECCOMP_FD = 5;
/**
 * bubblewrap reads its options from here (`--args`), NUL-separated, to the pipe's end, before it
 * does anything else; then it closes it. Only options come this way: the command bubblewrap runs
 * (`SANDBOX_COMMAND`) is on its command line, the same for every command.
 */
export const ARGS_FD = 6;

/** The limits the init sets on itself before it starts the command (inherited by every process). */
export interface InitLimits {
  /** `RLIMIT_NPROC`: processes and threads of the command's user in its user namespace. */
  readonly maxProcesses: number;
  /** `RLIMIT_DATA` in bytes: each process's data segment and private mappings. */
  readonly maxMemoryBytes: number;
  /** `RLIMIT_NOFILE`. */
  readonly maxOpenFiles: number;
  /**
   * The command's CPU seconds: `RLIMIT_CPU` is set 5 s above it (SIGXCPU, SIGKILL 5 s later), a
   * backstop for each process; the command's total is watched (`SandboxMonitor`), which ends it
   * first with a result that says so.
   */
  readonly maxCpuSeconds: number;
}

/**
 * PID 1 of the command's PID namespace (bash, started by bubblewrap with `--as-pid-1`).
 *
 * First it closes every descriptor but 0-3: a descriptor the worker inherited from whatever
 * started it (not close-on-exec there) would otherwise reach the command, and reopening it through
 * `/proc/1/fd` would too. POSIX sh cannot name descriptors above 9, so the init is bash.
 *
 * Then it sets the command's rlimits on itself, as hard and soft limits (a command cannot raise
 * them; where the worker's own hard limit is lower, that one is kept), runs the command's shell in
 * the foreground (so the command starts with the signal dispositions it would have unconfined) and
 * reports on fd 3, one line each: `ready` when it starts (the sandbox is set up: its `/proc` is the
 * namespace's, and watching it may begin), `exit N` when the shell ends, `left N` when it left N processes
 * running (those get SIGTERM and SIGCONT and `$1` ms to end), and last `wrote N`: the bytes the
 * command's processes wrote to disk (the kernel's I/O accounting of the init, which holds that of
 * every process it reaped). When the init exits, the kernel kills whatever is left in the
 * namespace. Builtins only after the limits, but for `sleep` in the grace loop: a command that
 * spent its process limit leaves the init no fork, and the loop then just ends.
 *
 * Its values come in its environment (`initEnvironment`), set by bubblewrap's `--setenv`: its
 * command line is fixed, so that a bubblewrap can be started before its command is known. It runs
 * nothing unless `SWITCHYARD_INIT_COMPLETE` (the last of them) is set: bubblewrap took its options
 * to the end of the pipe, and a worker that died while writing them leaves an incomplete list. It
 * moves them into `$1` grace ms, `$2` the `bash -lc` script, `$3` processes, `$4` memory KiB, `$5`
 * open files, `$6` CPU seconds, and removes them from the environment the command's shell gets.
 */
export const SANDBOX_INIT_SCRIPT = `[ "$SWITCHYARD_INIT_COMPLETE" = 1 ] || {
  printf '%s\\n' 'switchyard-sandbox-init: its values did not all arrive' >&2
  exit 125
}
set -- "$SWITCHYARD_INIT_GRACE_MS" "$SWITCHYARD_INIT_SCRIPT" "$SWITCHYARD_INIT_PROCESSES" \\
  "$SWITCHYARD_INIT_MEMORY_KIB" "$SWITCHYARD_INIT_OPEN_FILES" "$SWITCHYARD_INIT_CPU_SECONDS"
unset SWITCHYARD_INIT_COMPLETE SWITCHYARD_INIT_GRACE_MS SWITCHYARD_INIT_SCRIPT SWITCHYARD_INIT_PROCESSES \\
  SWITCHYARD_INIT_MEMORY_KIB SWITCHYARD_INIT_OPEN_FILES SWITCHYARD_INIT_CPU_SECONDS
for fd in /proc/$$/fd/*; do
  fd=\${fd##*/}
  case $fd in 0|1|2|3) ;; *) eval "exec $fd>&-" 2>/dev/null ;; esac
done
report() { printf '%s\\n' "$1" >&3 2>/dev/null; }
report ready
limit() { ulimit -HS "$1" "$2" 2>/dev/null || ulimit -HS "$1" "$(ulimit -H "$1")" 2>/dev/null; }
limit -u "$3"
limit -d "$4"
limit -n "$5"
ulimit -H -t "$(($6 + 10))" 2>/dev/null
ulimit -S -t "$(($6 + 5))" 2>/dev/null
count() {
  n=0
  for d in /proc/[0-9]*; do
    [ "$d" = /proc/1 ] && continue
    s=
    { IFS= read -r s < "$d/stat"; } 2>/dev/null
    s=\${s##*) }
    case $s in ''|Z*|X*) ;; *) n=$((n + 1)) ;; esac
  done
}
bash -lc "$2" </dev/null 3>&-
status=$?
report "exit $status"
count
if [ "$n" -gt 0 ]; then
  report "left $n"
  kill -TERM -1 2>/dev/null
  kill -CONT -1 2>/dev/null
  waited=0
  while [ "$waited" -lt "$1" ]; do
    sleep 0.05 2>/dev/null || break
    waited=$((waited + 50))
    count
    if [ "$n" -eq 0 ]; then break; fi
  done
fi
written=0
cancelled=0
while IFS=': ' read -r key value; do
  case $key in
    write_bytes) written=$value ;;
    cancelled_write_bytes) cancelled=$value ;;
  esac
done < /proc/$$/io 2>/dev/null
report "wrote $((written - cancelled))"
exit "$status"
`;

/**
 * What bubblewrap runs, after its options: the init, with a command line that is the same for every
 * command (its values come in `initEnvironment`).
 */
export const SANDBOX_COMMAND: readonly string[] = [
  '--',
  'bash',
  '--norc',
  '--noprofile',
  '-c',
  SANDBOX_INIT_SCRIPT,
  'switchyard-sandbox-init',
];

/** Names of the init's values in its environment; configuring one for commands is refused. */
export const INIT_ENVIRONMENT_PREFIX = 'SWITCHYARD_INIT_';

/**
 * The init's values, as `[name, value]` pairs in the order bubblewrap is to set them:
 * `SWITCHYARD_INIT_COMPLETE` last, so that it is set only when every option before it arrived.
 */
export function initEnvironment(graceMs: number, script: string, limits: InitLimits): [string, string][] {
  return [
    ['SWITCHYARD_INIT_GRACE_MS', String(graceMs)],
    ['SWITCHYARD_INIT_SCRIPT', script],
    ['SWITCHYARD_INIT_PROCESSES', String(limits.maxProcesses)],
    ['SWITCHYARD_INIT_MEMORY_KIB', String(Math.floor(limits.maxMemoryBytes / 1024))],
    ['SWITCHYARD_INIT_OPEN_FILES', String(limits.maxOpenFiles)],
    ['SWITCHYARD_INIT_CPU_SECONDS', String(limits.maxCpuSeconds)],
    ['SWITCHYARD_INIT_COMPLETE', '1'],
  ];
}
