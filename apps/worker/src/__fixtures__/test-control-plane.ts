import { type ControlPlane, type ControlPlaneOptions, openControlPlane } from '@switchyard/control-plane';
import { createPgliteDatabase, type TestDatabase } from '@switchyard/test-databases';
import { afterAll, beforeAll } from 'vitest';

/** What `openControlPlane` takes besides where its database is and the environment (none here). */
export type TestControlPlaneOptions = Omit<ControlPlaneOptions, 'dataDir' | 'databaseUrl' | 'environment'>;

/** A control plane on a fresh test database of its own. */
export interface TestControlPlane {
  /** The open control plane. */
  controlPlane: ControlPlane;
  /** The database it is open on. */
  database: TestDatabase;
  /** Closes the control plane, then removes its database. */
  close(): Promise<void>;
}

/**
 * Opens a control plane with `options` on a fresh database made by `create` (embedded PGlite by
 * default; a suite run over `testBackends` passes its backend's `create`), with an empty environment
 * so no variable of the machine running the tests changes what it does.
 */
export async function openTestControlPlane(
  options: TestControlPlaneOptions = {},
  create: () => Promise<TestDatabase> = createPgliteDatabase,
): Promise<TestControlPlane> {
  const database = await create();
  let controlPlane: ControlPlane;
  try {
    controlPlane = await openControlPlane({ ...options, ...database.options, environment: {} });
  } catch (error) {
    await database.dispose();
    throw error;
  }
  return {
    controlPlane,
    database,
    close: async () => {
      try {
        await controlPlane.close();
      } finally {
        await database.dispose();
      }
    },
  };
}

/**
 * A control plane on embedded PGlite opened before the tests of the file (or of the `describe`
 * block it is called in) and closed after them: its fields can be read in hooks and tests, once it
 * is open.
 */
export function testControlPlaneForSuite(
  options: TestControlPlaneOptions = {},
): Pick<TestControlPlane, 'controlPlane' | 'database'> {
  let opened: TestControlPlane | undefined;
  beforeAll(async () => {
    opened = await openTestControlPlane(options);
  });
  afterAll(async () => {
    await opened?.close();
  });
  const current = () => {
    if (opened === undefined) throw new Error('the test control plane is read before it was opened');
    return opened;
  };
  return {
    get controlPlane() {
      return current().controlPlane;
    },
    get database() {
      return current().database;
    },
  };
}
