// Classic BPF, as `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)` takes it (bubblewrap's `--seccomp FD`
// reads the raw program: an array of `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`).
const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_GREATER_EQUAL = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JUMP_ANY_BIT = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** `struct seccomp_data`: `nr` at 0, `arch` at 4, `args[i]` (64 bits each) from 16. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low 32 bits of `args[index]` on a little-endian machine (the only ones filtered here). */
const argumentOffset = (index: number) => 16 + 8 * index;

/** S_ISUID | S_ISGID. */
const PRIVILEGE_BITS = 0o6000;
/** O_CREAT | __O_TMPFILE (the same values on x86 and the generic table arm64 uses). */
const CREATING_FLAGS = 0o100 | 0o20000000;
/** The x32 ABI's system calls carry this bit in `nr` under the x86-64 architecture value. */
const X32_SYSCALL_BIT = 0x40000000;

/** What a system call's arguments must not do. */
type Check =
  /** `args[mode]` holds a mode: refuse the setuid and setgid bits. */
  | { mode: number }
  /** `args[flags]` may create a file with mode `args[mode]`: refuse those bits when it does. */
  | { flags: number; mode: number }
  /** Refused as not implemented: its mode is behind a pointer the filter cannot read (`openat2`). */
  | 'unavailable';

interface Architecture {
  /** `AUDIT_ARCH_*`. */
  readonly audit: number;
  /** System call numbers and what to check. */
  readonly calls: ReadonlyArray<readonly [number, Check]>;
  /** The x86-64 table: x32 calls are refused. */
  readonly refusesX32?: boolean;
}

/** What each filtered system call's arguments are checked for: where its mode (and flags) sit. */
const CHECKS = {
  chmod: { mode: 1 },
  fchmod: { mode: 1 },
  fchmodat: { mode: 2 },
  fchmodat2: { mode: 2 },
  mknod: { mode: 1 },
  mknodat: { mode: 2 },
  creat: { mode: 1 },
  open: { flags: 1, mode: 2 },
  openat: { flags: 2, mode: 3 },
  openat2: 'unavailable',
} as const satisfies Record<string, Check>;

/** An architecture's numbers of the filtered calls it has, in the order given, with their checks. */
function callsOf(numbers: Partial<Record<keyof typeof CHECKS, number>>): Architecture['calls'] {
  return Object.entries(numbers).map(([name, number]) => [number, CHECKS[name as keyof typeof CHECKS]]);
}

// Numbers from the kernel's syscall tables (arch/x86/entry/syscalls/syscall_{64,32}.tbl,
// include/uapi/asm-generic/unistd.h, arch/arm/tools/syscall.tbl). fchmodat2 (452) and openat2
// (437) have one number everywhere.
const X86_64: Architecture = {
  audit: 0xc000003e,
  refusesX32: true,
  calls: callsOf({
    chmod: 90,
    fchmod: 91,
    fchmodat: 268,
    fchmodat2: 452,
    mknod: 133,
    mknodat: 259,
    creat: 85,
    open: 2,
    openat: 257,
    openat2: 437,
  }),
};
const I386: Architecture = {
  audit: 0x40000003,
  calls: callsOf({
    chmod: 15,
    fchmod: 94,
    fchmodat: 306,
    fchmodat2: 452,
    mknod: 14,
    mknodat: 297,
    creat: 8,
    open: 5,
    openat: 295,
    openat2: 437,
  }),
};
const AARCH64: Architecture = {
  audit: 0xc00000b7,
  calls: callsOf({ fchmod: 52, fchmodat: 53, fchmodat2: 452, mknodat: 33, openat: 56, openat2: 437 }),
};
const ARM: Architecture = {
  audit: 0x40000028,
  calls: callsOf({
    chmod: 15,
    fchmod: 94,
    fchmodat: 333,
    fchmodat2: 452,
    mknod: 14,
    mknodat: 324,
    creat: 8,
    open: 5,
    openat: 322,
    openat2: 437,
  }),
};

/** The architectures a process of this machine can make system calls in (native, then compat). */
const ARCHITECTURES: Partial<Record<NodeJS.Architecture, readonly Architecture[]>> = {
  x64: [X86_64, I386],
  arm64: [AARCH64, ARM],
};

interface Instruction {
  code: number;
  k: number;
  /** Labels jumped to when the condition holds / does not (jumps only). */
  whenTrue?: string;
  whenFalse?: string;
}

/** A tiny assembler: instructions with labelled jump targets, resolved to BPF's relative offsets. */
class Program {
  private readonly instructions: Instruction[] = [];
  private readonly labels = new Map<string, number>();

  label(name: string): void {
    this.labels.set(name, this.instructions.length);
  }

  load(offset: number): void {
    this.instructions.push({ code: LOAD_WORD, k: offset });
  }

  jump(code: number, k: number, whenTrue: string, whenFalse: string): void {
    this.instructions.push({ code, k, whenTrue, whenFalse });
  }

  give(value: number): void {
    this.instructions.push({ code: RETURN, k: value });
  }

  bytes(): Buffer {
    const buffer = Buffer.alloc(this.instructions.length * 8);
    this.instructions.forEach((instruction, index) => {
      const offset = (label: string | undefined) => {
        if (label === undefined) return 0;
        const target = this.labels.get(label);
        const distance = target === undefined ? -1 : target - index - 1;
        // Classic BPF jumps forward only, at most 255 instructions.
        if (distance < 0 || distance > 255) throw new Error(`seccomp filter: cannot jump to ${label}`);
        return distance;
      };
      buffer.writeUInt16LE(instruction.code, index * 8);
      buffer.writeUInt8(offset(instruction.whenTrue), index * 8 + 2);
      buffer.writeUInt8(offset(instruction.whenFalse), index * 8 + 3);
      buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
    });
    return buffer;
  }
}

let cached: { filter: Buffer | undefined } | undefined;

/**
 * The seccomp filter every sandboxed command runs under: setting the setuid or setgid bit is
 * refused (EPERM) in `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, and in `open`, `openat`, `creat`,
 * `mknod`, `mknodat` when they create a file; `openat2` (whose mode the filter cannot read) and the
 * x32 ABI answer ENOSYS, and so does any architecture the machine's table does not name. Everything
 * else is allowed. A file a command leaves in the home therefore never carries a privilege bit on
 * the host (a root worker's command would otherwise plant a setuid-root binary there).
 *
 * Undefined where no table is written (not x64 or arm64): the sandbox is then unavailable.
 */
export function privilegeBitFilter(): Buffer | undefined {
  if (cached !== undefined) return cached.filter;
  const architectures = ARCHITECTURES[process.arch];
  if (architectures === undefined || process.platform !== 'linux') {
    cached = { filter: undefined };
    return undefined;
  }
  const program = new Program();
  program.load(ARCH_OFFSET);
  for (const [index, architecture] of architectures.entries()) {
    program.jump(JUMP_EQUAL, architecture.audit, `arch${index}`, `not-arch${index}`);
    program.label(`not-arch${index}`);
  }
  program.give(SECCOMP_RET_ERRNO | ENOSYS);
  const checks = new Map<string, Exclude<Check, 'unavailable'>>();
  for (const [index, architecture] of architectures.entries()) {
    program.label(`arch${index}`);
    program.load(NR_OFFSET);
    if (architecture.refusesX32) {
      program.jump(JUMP_GREATER_EQUAL, X32_SYSCALL_BIT, 'unavailable', `arch${index}-native`);
      program.label(`arch${index}-native`);
    }
    for (const [call, [number, check]] of architecture.calls.entries()) {
      const name =
        check === 'unavailable'
          ? 'unavailable'
          : 'flags' in check
            ? `create-${check.flags}-${check.mode}`
            : `mode-${check.mode}`;
      if (check !== 'unavailable') checks.set(name, check);
      const next = `arch${index}-call${call + 1}`;
      program.jump(JUMP_EQUAL, number, name, next);
      program.label(next);
    }
    program.give(SECCOMP_RET_ALLOW);
  }
  // Creating calls first: each jumps forward to the mode check of its mode argument.
  const modes = new Set<number>();
  for (const [name, check] of checks) {
    if (!('flags' in check)) {
      modes.add(check.mode);
      continue;
    }
    modes.add(check.mode);
    program.label(name);
    program.load(argumentOffset(check.flags));
    program.jump(JUMP_ANY_BIT, CREATING_FLAGS, `mode-${check.mode}`, 'allow');
  }
  for (const mode of modes) {
    program.label(`mode-${mode}`);
    program.load(argumentOffset(mode));
    program.jump(JUMP_ANY_BIT, PRIVILEGE_BITS, 'refuse', 'allow');
  }
  program.label('allow');
  program.give(SECCOMP_RET_ALLOW);
  program.label('refuse');
  program.give(SECCOMP_RET_ERRNO | EPERM);
  program.label('unavailable');
  program.give(SECCOMP_RET_ERRNO | ENOSYS);
  cached = { filter: program.bytes() };
  return cached.filter;
}
