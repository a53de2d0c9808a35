import type { ApprovalFileBefore } from '@switchyard/control-plane';
import { readFileBeforeWrite } from '@switchyard/tools-computer';
import type { DaemonFileBefore } from './daemon-turn-types';

/**
 * The most bytes of a replaced file an approval keeps: the size of arguments an approval list carries
 * whole (`APPROVAL_INLINE_ARGUMENT_BYTES`), so the file and its new content are read within one budget.
 */
export const FILE_BEFORE_BYTES = 64 * 1024;

/**
 * The daemon's `fileBefore` for a held `write_file` over a file in its agent's home (`homeOf`): the
 * file as `readFileBeforeWrite` reads it, at most `FILE_BEFORE_BYTES` of it, or undefined for any
 * other call. Reads only inside the home, exactly as the tool would write.
 */
export function fileBeforeWriteOf(homeOf: (agentId: string) => string): DaemonFileBefore {
  return async ({ agentId, toolKey, params }): Promise<ApprovalFileBefore | undefined> => {
    if (toolKey !== 'write_file') return undefined;
    const path = (params as { path?: unknown } | null)?.path;
    // A path the approval could not store beside it (see ApprovalFileBefore) gets no file: the
    // operator still sees the arguments.
    if (typeof path !== 'string' || Buffer.byteLength(path) > 4096 || path.includes('\u0000'))
      return undefined;
    return readFileBeforeWrite(homeOf(agentId), path, { maxBytes: FILE_BEFORE_BYTES });
  };
}
