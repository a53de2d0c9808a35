import {
  chmodSync,
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { chmod, copyFile, cp, lstat, mkdir, mkdtemp, readlink, realpath, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The system folders a command sees, read-only: binaries and libraries. Where one is a symlink on
 * the host (a merged-/usr system's `/bin -> usr/bin`), the sandbox gets the same symlink.
 */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
];

/**
 * What a command sees of the host's `/etc`, read-only: user and group names (no password hashes),
 * name resolution, the dynamic linker's cache, Debian's alternatives (`awk`, `editor`), CA
 * certificates (not `ssl/private`), the time zone, the login shell's profile, and the files tools
 * read to identify the system. Nothing else: no `shadow`, no `ssh` host keys, no `sudoers`, no
 * package managers' credentials (`npmrc`, `pip.conf`), no `machine-id`.
 */
export const ETC_ENTRIES: readonly string[] = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'resolv.conf',
  'gai.conf',
  'services',
  'protocols',
  'networks',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'localtime',
  'timezone',
  'profile',
  'profile.d',
  'bash.bashrc',
  'inputrc',
  'environment',
  'locale.alias',
  'mime.types',
  'magic',
  'magic.mime',
  'os-release',
  'lsb-release',
  'debian_version',
  'shells',
  'terminfo',
  'mtab',
];

/** Where a symlink may point and stay a symlink: places the sandbox shows itself. */
function targetShown(target: string): boolean {
  return ['/usr', '/proc', '/etc', '/bin', '/lib', '/dev'].some(
    (root) => target === root || target.startsWith(`${root}/`),
  );
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Copies `/etc/<entry>` into `folder`: a file or folder as it is, a symlink as a link or as the file it leads to. */
function copyEntry(entry: string, folder: string): void {
  const host = path.join('/etc', entry);
  const copy = path.join(folder, entry);
  const stats = lstatOrUndefined(host);
  if (stats === undefined) return;
  mkdirSync(path.dirname(copy), { recursive: true });
  try {
    if (stats.isSymbolicLink()) {
      const target = readlinkSync(host);
      // A link into what the sandbox shows (`/etc/localtime -> /usr/share/zoneinfo/...`, `/etc/mtab
      // -> ../proc/self/mounts`) stays a link; one elsewhere (`/etc/resolv.conf -> /run/...`) becomes
      // the file it leads to, and nothing else of that place.
      if (targetShown(path.resolve('/etc', path.dirname(entry), target))) symlinkSync(target, copy);
      else copyFileSync(realpathSync(host), copy);
    } else if (stats.isDirectory()) {
      cpSync(host, copy, { recursive: true, verbatimSymlinks: true, errorOnExist: false });
    } else if (stats.isFile()) {
      copyFileSync(host, copy);
    }
  } catch {
    // Unreadable to this worker (or gone meanwhile): left out.
  }
}

/** `copyEntry` without blocking: a copy made again while commands run. */
async function copyEntryAsync(entry: string, folder: string): Promise<void> {
  const host = path.join('/etc', entry);
  const copy = path.join(folder, entry);
  const stats = await lstat(host).catch(() => undefined);
  if (stats === undefined) return;
  await mkdir(path.dirname(copy), { recursive: true });
  try {
    if (stats.isSymbolicLink()) {
      const target = await readlink(host);
      if (targetShown(path.resolve('/etc', path.dirname(entry), target))) await symlink(target, copy);
      else await copyFile(await realpath(host), copy);
    } else if (stats.isDirectory()) {
      await cp(host, copy, { recursive: true, verbatimSymlinks: true, errorOnExist: false });
    } else if (stats.isFile()) {
      await copyFile(host, copy);
    }
  } catch {
    // Unreadable to this worker (or gone meanwhile): left out.
  }
}

async function buildCopyAsync(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-etc-'));
  await chmod(folder, 0o755);
  for (const entry of ETC_ENTRIES) await copyEntryAsync(entry, folder);
  return folder;
}

/** What the sources looked like when a copy was made: their change times, in order. */
async function signatureOf(): Promise<string> {
  const times = await Promise.all(
    ETC_ENTRIES.map((entry) =>
      lstat(path.join('/etc', entry)).then(
        (stats) => `${stats.ctimeMs}:${stats.mtimeMs}`,
        () => '-',
      ),
    ),
  );
  return times.join(',');
}

function signatureOfSync(): string {
  return ETC_ENTRIES.map((entry) => {
    const stats = lstatOrUndefined(path.join('/etc', entry));
    return stats === undefined ? '-' : `${stats.ctimeMs}:${stats.mtimeMs}`;
  }).join(',');
}

function buildCopy(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'switchyard-etc-'));
  // Readable by the commands of any worker user; written only by this one.
  chmodSync(folder, 0o755);
  for (const entry of ETC_ENTRIES) copyEntry(entry, folder);
  return folder;
}

/** How often the copy is compared with the host's `/etc`, in ms. */
const CHECK_EVERY_MS = 30_000;

let current: { folder: string; signature: string; checkedAt: number } | undefined;
let checking = false;
const made: string[] = [];

/**
 * A folder holding copies of the `ETC_ENTRIES` of the host's `/etc`, mounted read-only as the
 * sandbox's `/etc` in one bind: about 30 binds of single files cost each command that many mounts
 * to set up and to tear down. Made once per process (synchronously, with the first probe); compared
 * with the host's entries (their change times) at most every 30 s, and made again when one changed
 * (a new `resolv.conf`; the new copy is made without blocking), so a copy is at most that old.
 * Copies are removed when the process exits.
 */
export function etcViewFolder(): string {
  if (current === undefined) {
    const signature = signatureOfSync();
    const folder = buildCopy();
    made.push(folder);
    if (made.length === 1) {
      process.once('exit', () => {
        for (const old of made) rmSync(old, { recursive: true, force: true });
      });
    }
    current = { folder, signature, checkedAt: performance.now() };
  } else if (!checking && performance.now() - current.checkedAt >= CHECK_EVERY_MS) {
    checking = true;
    const known = current;
    void signatureOf()
      .then(async (signature) => {
        known.checkedAt = performance.now();
        if (signature === known.signature) return;
        const folder = await buildCopyAsync();
        made.push(folder);
        current = { folder, signature, checkedAt: performance.now() };
        // A sandbox mounts its /etc when it starts: the old copy is removed once none can be starting.
        setTimeout(() => rmSync(known.folder, { recursive: true, force: true }), 60_000).unref();
      })
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }
  return current.folder;
}

function systemFolderArguments(folder: string): string[] {
  const stats = lstatOrUndefined(folder);
  if (stats === undefined) return [];
  if (stats.isSymbolicLink()) return ['--symlink', readlinkSync(folder), folder];
  // `-try`: a folder removed after this was worked out is left out rather than failing the sandbox.
  return stats.isDirectory() ? ['--ro-bind-try', folder, folder] : [];
}

let systemArguments: readonly string[] | undefined;

/**
 * bubblewrap's arguments for the host's system folders (`SYSTEM_FOLDERS`, worked out once per
 * process) and for `/etc` (`etcViewFolder`, one read-only bind).
 */
export function hostViewArguments(): string[] {
  systemArguments ??= SYSTEM_FOLDERS.flatMap(systemFolderArguments);
  return [...systemArguments, '--ro-bind', etcViewFolder(), '/etc'];
}
