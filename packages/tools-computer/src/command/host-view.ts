import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
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

function entryArguments(entry: string): string[] {
  const host = path.join('/etc', entry);
  const stats = lstatOrUndefined(host);
  if (stats === undefined) return [];
  // `-try`: an entry removed after this was worked out is left out rather than failing the sandbox.
  if (!stats.isSymbolicLink()) return ['--ro-bind-try', host, host];
  const target = readlinkSync(host);
  const resolved = path.resolve(path.dirname(host), target);
  // A link into what the sandbox shows (`/etc/localtime -> /usr/share/zoneinfo/...`, `/etc/mtab ->
  // ../proc/self/mounts`) stays a link; one elsewhere (`/etc/resolv.conf -> /run/...`) shows the
  // file it leads to, and nothing else of that place.
  if (targetShown(resolved)) return ['--symlink', target, host];
  try {
    return ['--ro-bind-try', realpathSync(host), host];
  } catch {
    return [];
  }
}

function systemFolderArguments(folder: string): string[] {
  const stats = lstatOrUndefined(folder);
  if (stats === undefined) return [];
  if (stats.isSymbolicLink()) return ['--symlink', readlinkSync(folder), folder];
  return stats.isDirectory() ? ['--ro-bind-try', folder, folder] : [];
}

let cached: readonly string[] | undefined;

/**
 * bubblewrap's arguments for the host's system folders and `/etc` entries (`SYSTEM_FOLDERS`,
 * `ETC_ENTRIES`), worked out once per process from what exists on the host (about 40 `lstat`s,
 * with the first probe).
 */
export function hostViewArguments(): readonly string[] {
  cached ??= [
    ...SYSTEM_FOLDERS.flatMap(systemFolderArguments),
    '--dir',
    '/etc',
    ...ETC_ENTRIES.flatMap(entryArguments),
  ];
  return cached;
}
