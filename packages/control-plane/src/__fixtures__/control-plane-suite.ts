// The set-up most suites share: a fresh database of one backend and a control plane on it, opened
// before the suite's tests and closed after them.
import type { TestBackend, TestDatabase } from '@switchyard/test-databases';
import { afterAll, beforeAll } from 'vitest';
import { type ControlPlane, type ControlPlaneOptions, openControlPlane } from '../index';
import { queryControlPlane } from '../testing';

/** What a suite reads in its tests and hooks; set once the suite's `beforeAll` ran. */
export interface ControlPlaneSuite {
  /** The fresh database the control plane runs on. */
  readonly database: TestDatabase;
  /** The control plane opened on it (with no environment variables read). */
  readonly controlPlane: ControlPlane;
  /**
   * Opens a new control plane with the same options on the same database, in place of the one the
   * caller closed (a restart); the suite closes the new one at its end.
   */
  reopen(): Promise<ControlPlane>;
  /** The rows `text` (SQL, with `values` for its `$n`) returns from the current control plane's database. */
  rows<TRow = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<TRow[]>;
}

/**
 * Registers the `beforeAll` that opens a control plane with `options` on a fresh database of
 * `backend`, and the `afterAll` that closes both. Hooks the suite registers after this call run
 * after the opening (`beforeAll`) and before the closing (`afterAll`, vitest runs them as a stack).
 */
export function useControlPlane(
  backend: TestBackend,
  options: ControlPlaneOptions = {},
  hookTimeoutMs?: number,
): ControlPlaneSuite {
  let database: TestDatabase | undefined;
  let controlPlane: ControlPlane | undefined;
  const open = async (on: TestDatabase) => {
    controlPlane = await openControlPlane({ ...on.options, environment: {}, ...options });
    return controlPlane;
  };
  beforeAll(async () => {
    database = await backend.create();
    await open(database);
  }, hookTimeoutMs);
  afterAll(async () => {
    await controlPlane?.close();
    await database?.dispose();
  }, hookTimeoutMs);
  return {
    get database() {
      if (database === undefined) throw new Error('the suite has not opened its database yet');
      return database;
    },
    get controlPlane() {
      if (controlPlane === undefined) throw new Error('the suite has not opened its control plane yet');
      return controlPlane;
    },
    reopen() {
      return open(this.database);
    },
    async rows<TRow>(text: string, values?: readonly unknown[]) {
      return (await queryControlPlane<TRow>(this.controlPlane, text, values)).rows;
    },
  };
}
