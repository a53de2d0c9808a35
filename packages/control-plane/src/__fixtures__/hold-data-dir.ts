// Holds a data directory in a process of its own, for the lock's tests: `node --import tsx
// hold-data-dir.ts <dataDir> <checkIntervalMs> [flock|perl]`. Prints one JSON line (`{ "status": "held", "lockPid" }`, or
// `{ "status": "refused", "name", "field", "message" }`), then keeps the lock until its stdin closes,
// printing `{ "status": "lost", "message" }` if the lock is lost meanwhile.

import { lockDataDir } from '../database/data-dir-lock';
import type { LockTool } from '../database/lock-process';
import { ControlPlaneConfigError } from '../errors/control-plane-config-error';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';

const [dataDir, checkIntervalMs, tool] = process.argv.slice(2);
const print = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(value)}\n`);

try {
  const lock = await lockDataDir(dataDir as string, {
    checkIntervalMs: Number(checkIntervalMs),
    ...(tool === undefined ? {} : { tools: [tool as LockTool] }),
    onLost: (loss) => print({ status: 'lost', message: loss.message }),
  });
  print({ status: 'held', lockPid: lock.lockPid, tool: lock.tool });
  process.stdin.resume();
  process.stdin.once('end', () => {
    void lock.release().then(() => process.exit(0));
  });
} catch (error) {
  const field =
    ControlPlaneInputError.isInstance(error) || ControlPlaneConfigError.isInstance(error)
      ? error.field
      : undefined;
  print({ status: 'refused', name: (error as Error).name, field, message: (error as Error).message });
  process.exitCode = 1;
}
