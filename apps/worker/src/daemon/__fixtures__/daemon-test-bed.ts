import type { ControlPlane } from '@switchyard/control-plane';
import type { ResponsesModel } from '@switchyard/core';
import {
  type FakeResponsesServer,
  type FakeResponsesServerOptions,
  startFakeResponsesServer,
} from '@switchyard/testkit';
import { fakeServerModel } from '../../__fixtures__/scripted-model';
import {
  openTestControlPlane,
  type TestControlPlane,
  type TestControlPlaneOptions,
} from '../../__fixtures__/test-control-plane';
import { type Daemon, type DaemonOptions, startDaemon } from '../start-daemon';

/** How a `DaemonTestBed` is opened. */
export interface DaemonTestBedOptions {
  /** The fake Responses server's script: the model every daemon of the bed talks to. */
  script: FakeResponsesServerOptions['script'];
  /** Options of the control plane (on a fresh embedded PGlite database). */
  controlPlane?: TestControlPlaneOptions;
}

/**
 * What the in-process daemons of a test file run on: a control plane on a fresh embedded PGlite
 * database, and a fake Responses server reached through the real `openai` SDK. One model serves
 * every daemon of the bed (stateless chaining: shareable).
 */
export class DaemonTestBed {
  readonly #daemons: Daemon[] = [];

  private constructor(
    readonly store: TestControlPlane,
    /** The fake Responses server (its `requests` are what the daemons sent). */
    readonly server: FakeResponsesServer,
    /** The real SDK's model over the fake server. */
    readonly model: ResponsesModel,
  ) {}

  /** Opens the control plane, then starts the fake server. */
  static async open(options: DaemonTestBedOptions): Promise<DaemonTestBed> {
    const store = await openTestControlPlane(options.controlPlane);
    let server: FakeResponsesServer;
    try {
      server = await startFakeResponsesServer({ script: options.script });
    } catch (error) {
      await store.close();
      throw error;
    }
    return new DaemonTestBed(store, server, fakeServerModel(server.baseURL));
  }

  /** The open control plane. */
  get controlPlane(): ControlPlane {
    return this.store.controlPlane;
  }

  /** Starts a daemon on the bed's control plane and model; `close` stops it. */
  async startDaemon(options: Omit<DaemonOptions, 'controlPlane' | 'model'>): Promise<Daemon> {
    const daemon = await startDaemon({ controlPlane: this.controlPlane, model: this.model, ...options });
    this.#daemons.push(daemon);
    return daemon;
  }

  /** Stops the daemons it started, in order, then closes the control plane (removing its database) and the fake server. */
  async close(): Promise<void> {
    for (const daemon of this.#daemons) await daemon.stop();
    await this.store.close();
    await this.server.close();
  }
}
