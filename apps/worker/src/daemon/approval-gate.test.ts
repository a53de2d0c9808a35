import type { ApprovalRecord } from '@switchyard/control-plane';
import { type AnyWorkerAgentTool, defineWorkerTool, type ToolCallRequest } from '@switchyard/core';
import { ZERO_USAGE } from '@switchyard/core/internal';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestControlPlane, type TestControlPlane } from '../__fixtures__/test-control-plane';
import { parseConfig } from '../config/load-config';
import { requestWriteApproval } from './__fixtures__/held-call';
import { ApprovalGate } from './approval-gate';
import type { ResumeState } from './turn-checkpoint';
import { createTurnEntry, type TurnEntry } from './turn-entry';
import { TurnRegistry } from './turn-registry';

// The approval gate on its own, in front of hand-made calls, on a real control plane (PGlite): what
// the policy decides, how a held call waits and what its decision does, and how a continued turn's
// calls are decided from what the stopped process left.

const AGENT = 'gate';
const WORKER = 'worker_gate';
const OTHER = 'worker_other';
/** Destructive calls wait for an answer; `delete_file` is refused; read-only calls run. */
const POLICY = parseConfig(
  { approvals: { destructive: 'ask', tools: { delete_file: 'deny' } } },
  { env: {} },
).approvals;

function fileTool(name: string, kind: 'destructive' | 'read-only'): AnyWorkerAgentTool {
  return defineWorkerTool({
    name,
    description: `${name} a file.`,
    schema: z.object({ path: z.string(), content: z.string().optional() }),
    executionMode: 'sequential',
    isDestructive: kind === 'destructive',
    isReadOnly: kind === 'read-only',
    describeActivity: ({ path }) => `${name} ${path}`,
    execute: async () => ({ content: 'done' }),
  }) as AnyWorkerAgentTool;
}

const writeFile = fileTool('write_file', 'destructive');
const deleteFile = fileTool('delete_file', 'destructive');
const readFile = fileTool('read_file', 'read-only');

/** A call of `tool` with `params`, item 1 of a transcript that holds it. */
function callOf(tool: AnyWorkerAgentTool, params: unknown, itemIndex = 1): ToolCallRequest {
  const items: ResponseInputItem[] = [
    { type: 'message', role: 'user', content: 'go' },
    { type: 'function_call', call_id: 'call_1', name: tool.name, arguments: JSON.stringify(params) },
  ];
  return {
    callId: 'call_1',
    itemIndex,
    name: tool.name,
    params,
    rawArguments: JSON.stringify(params),
    repairs: [],
    transcript: () => items,
  };
}

const noResume = undefined;

let bed: TestControlPlane;
const registry = new TurnRegistry();
const logged: string[] = [];
let gate: ApprovalGate;
let turnNumber = 0;

beforeAll(async () => {
  bed = await openTestControlPlane();
  gate = new ApprovalGate({
    // A minute between polls: a decision that arrives sooner came through `notifyDecision`.
    approvals: { store: bed.controlPlane.approvals, policy: () => POLICY, pollMs: 60_000 },
    workerId: WORKER,
    records: bed.controlPlane.turns,
    push: (entry, event) => registry.push(entry, event),
    letGo: (entry, letGo, reason) => registry.letGo(entry, letGo, reason),
    log: (line) => logged.push(line),
  });
});

afterAll(async () => {
  gate?.stop();
  await bed?.close();
});

/** A turn recorded running on `workerId`, as this process's entry (with a time limit of a minute). */
async function recordedTurn(workerId = WORKER): Promise<TurnEntry> {
  turnNumber += 1;
  const id = `turn_gate_${turnNumber}`;
  const record = await bed.controlPlane.turns.recordStart({
    id,
    agentId: AGENT,
    source: 'api',
    prompt: 'go',
    workerId,
  });
  const entry = createTurnEntry(
    {
      id,
      agent: AGENT,
      title: 'a turn',
      source: 'api',
      status: 'running',
      output: '',
      usage: ZERO_USAGE,
      iterations: 1,
      createdAt: record.createdAt,
    },
    60_000,
  );
  registry.add(entry);
  return entry;
}

/** An approval of `write_file` with `params` for a turn of `workerId`, answered `decision`. */
async function decidedApproval(
  entry: TurnEntry,
  params: unknown,
  decision: 'allow' | 'deny',
  workerId = WORKER,
): Promise<ApprovalRecord> {
  const approval = await requestWriteApproval(bed.controlPlane.approvals, {
    turnId: entry.snapshot.id,
    workerId,
    callId: 'call_1',
    callIndex: 1,
    activity: 'Writing',
    arguments: params,
  });
  const answer = await bed.controlPlane.approvals.answer({ id: approval.id, decision, answeredBy: 'test' });
  return answer?.approval as ApprovalRecord;
}

function resumeWith(approvals: ApprovalRecord[], started: number[] = []): ResumeState {
  return {
    items: [],
    approvals: new Map(approvals.map((approval) => [`item:${approval.callIndex}`, approval])),
    started: new Set(started),
    instructions: undefined,
  };
}

/** Once the entry's call is held, answers its approval as an operator would and tells `via` at once. */
async function answerHeld(
  entry: TurnEntry,
  via: ApprovalGate,
  answer: { decision: 'allow' | 'deny'; reason?: string },
): Promise<void> {
  await entry.detached;
  const requested = entry.events[0];
  if (requested?.type !== 'approval-requested') throw new Error('no approval-requested event');
  const answered = await bed.controlPlane.approvals.answer({
    id: requested.approval.id,
    ...answer,
    answeredBy: 'test',
  });
  via.notifyDecision(answered?.approval as ApprovalRecord);
}

describe('the policy in front of each call (PGlite)', () => {
  it('refuses a call the policy denies, naming the field that decided', async () => {
    const entry = await recordedTurn();
    expect(await gate.beforeToolCall(entry, callOf(deleteFile, { path: 'a' }), deleteFile, noResume)).toEqual(
      {
        allow: false,
        reason: 'the approval policy of agent gate refuses delete_file (approvals.tools.delete_file: deny)',
      },
    );
    expect(entry.events).toEqual([]);
  });

  it('lets a call the policy allows run at once, noted as let run', async () => {
    const entry = await recordedTurn();
    expect(await gate.beforeToolCall(entry, callOf(readFile, { path: 'a' }), readFile, noResume)).toEqual({
      allow: true,
    });
    expect([...entry.allowed]).toEqual([1]);
  });
});

describe('calls in doubt in a resumed turn (PGlite)', () => {
  const inDoubt = (tool: AnyWorkerAgentTool, params: unknown) => ({
    ...callOf(tool, params),
    inDoubt: true as const,
  });

  it('reports a call in doubt without running it again by default, and lets a read-only one run', async () => {
    const entry = await recordedTurn();
    expect(await gate.beforeToolCall(entry, inDoubt(writeFile, { path: 'a' }), writeFile, noResume)).toEqual({
      allow: false,
      reason: 'agent gate reports calls in doubt without running them again (approvals.inDoubt: report)',
    });
    expect(await gate.beforeToolCall(entry, inDoubt(readFile, { path: 'a' }), readFile, noResume)).toEqual({
      allow: true,
    });
    expect(entry.events).toEqual([]);
  });

  it('holds a call in doubt for an operator with approvals.inDoubt ask, whatever its tool’s own policy', async () => {
    const asking = new ApprovalGate({
      approvals: {
        store: bed.controlPlane.approvals,
        // Destructive calls run at once here: only being in doubt holds this one.
        policy: () =>
          parseConfig({ approvals: { destructive: 'allow', inDoubt: 'ask' } }, { env: {} }).approvals,
        pollMs: 60_000,
      },
      workerId: WORKER,
      records: bed.controlPlane.turns,
      push: (entry, event) => registry.push(entry, event),
      letGo: (entry, letGo, reason) => registry.letGo(entry, letGo, reason),
    });
    try {
      const entry = await recordedTurn();
      const decision = asking.beforeToolCall(entry, inDoubt(writeFile, { path: 'b' }), writeFile, noResume);
      await answerHeld(entry, asking, { decision: 'deny' });
      expect(await decision).toMatchObject({ allow: false });
      entry.deadline?.dispose();
    } finally {
      asking.stop();
    }
  });
});

describe('a held call (PGlite)', () => {
  it('waits, its turn waiting-approval and its time limit paused, until allowed; then it runs, taken by this worker', async () => {
    const entry = await recordedTurn();
    const params = { path: 'notes.txt', content: 'hello' };
    const decision = gate.beforeToolCall(entry, callOf(writeFile, params), writeFile, noResume);
    await entry.detached;
    expect(entry.snapshot.status).toBe('waiting-approval');
    const spent = entry.deadline?.activeMs();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(entry.deadline?.activeMs()).toBe(spent);
    const requested = entry.events[0];
    if (requested?.type !== 'approval-requested') throw new Error('no approval-requested event');
    expect(requested.approval).toMatchObject({
      toolKey: 'write_file',
      arguments: params,
      status: 'pending',
    });
    const answer = await bed.controlPlane.approvals.answer({
      id: requested.approval.id,
      decision: 'allow',
      answeredBy: 'test',
    });
    gate.notifyDecision(answer?.approval as ApprovalRecord);
    expect(await decision).toEqual({ allow: true });
    expect(entry.snapshot.status).toBe('running');
    expect(entry.events.map((event) => event.type)).toEqual(['approval-requested', 'approval-resolved']);
    const [stored] = await bed.controlPlane.approvals.getMany([requested.approval.id]);
    expect(stored?.consumedBy).toBe(WORKER);
    entry.deadline?.dispose();
  });

  it('gives the model an operator’s denial with its reason', async () => {
    const entry = await recordedTurn();
    const decision = gate.beforeToolCall(entry, callOf(writeFile, { path: 'x' }), writeFile, noResume);
    await answerHeld(entry, gate, { decision: 'deny', reason: 'not that file' });
    expect(await decision).toEqual({ allow: false, reason: 'an operator denied it: not that file' });
    entry.deadline?.dispose();
  });

  it('runs nothing when the turn is aborted while the call waits', async () => {
    const entry = await recordedTurn();
    const decision = gate.beforeToolCall(entry, callOf(writeFile, { path: 'x' }), writeFile, noResume);
    await entry.detached;
    entry.controller.abort(new Error('cancelled'));
    expect(await decision).toEqual({
      allow: false,
      reason: 'the turn was aborted while this call waited for approval; it was not run',
    });
    entry.deadline?.dispose();
  });

  it('holds nothing it cannot record: the call is refused, saying why', async () => {
    // The records refuse an approval for a turn another worker runs.
    const entry = await recordedTurn(OTHER);
    const decision = await gate.beforeToolCall(entry, callOf(writeFile, { path: 'x' }), writeFile, noResume);
    expect(decision).toMatchObject({ allow: false });
    expect(decision.allow === false && decision.reason).toMatch(
      /^this call needs an operator's approval, which could not be recorded \(.*only the worker running a turn holds its calls\); it was not run$/,
    );
    expect(entry.held.size).toBe(0);
    entry.deadline?.dispose();
  });
});

describe('the calls of a continued turn (PGlite)', () => {
  it('runs a stored allowed decision with the arguments it holds, once', async () => {
    const entry = await recordedTurn();
    const params = { path: 'same.txt', content: 'approved' };
    const approval = await decidedApproval(entry, params, 'allow');
    const resume = resumeWith([approval]);
    // Key order aside, the same arguments.
    const call = callOf(writeFile, { content: 'approved', path: 'same.txt' });
    expect(await gate.beforeToolCall(entry, call, writeFile, resume)).toEqual({ allow: true });
    expect(resume.approvals.size).toBe(0);
    entry.deadline?.dispose();
  });

  it('refuses a call whose arguments differ from those its approval holds, and logs it', async () => {
    const entry = await recordedTurn();
    const approval = await decidedApproval(entry, { path: 'notes.txt', content: 'approved' }, 'allow');
    const call = callOf(writeFile, { path: 'notes.txt', content: 'approved; and more' });
    expect(await gate.beforeToolCall(entry, call, writeFile, resumeWith([approval]))).toEqual({
      allow: false,
      reason:
        'the approval an operator gave was for write_file with other arguments than this call has; it was not run',
    });
    expect(logged.at(-1)).toContain(`approval ${approval.id} was for write_file with other arguments`);
    entry.deadline?.dispose();
  });

  it('does not run again a decision the stopped worker had taken: the call may have run', async () => {
    const entry = await recordedTurn(OTHER);
    const params = { path: 'taken.txt' };
    const approval = await decidedApproval(entry, params, 'allow', OTHER);
    const taken = await bed.controlPlane.approvals.consume({ id: approval.id, workerId: OTHER });
    const decision = await gate.beforeToolCall(
      entry,
      callOf(writeFile, params),
      writeFile,
      resumeWith([taken as ApprovalRecord]),
    );
    expect(decision).toEqual({
      allow: false,
      reason: `the worker that ran this turn before (${OTHER}) had started this allowed call when it stopped, so it may have run; it was not run again: check its effect before calling it again`,
    });
    entry.deadline?.dispose();
  });

  it('lets the turn go when its record says another worker took it over', async () => {
    // Recorded on the other worker: this one cannot take the decision.
    const entry = await recordedTurn(OTHER);
    const approval = await decidedApproval(entry, { path: 'x' }, 'allow', OTHER);
    const decision = await gate.beforeToolCall(
      entry,
      callOf(writeFile, { path: 'x' }),
      writeFile,
      resumeWith([approval]),
    );
    expect(decision).toEqual({ allow: false, reason: 'another worker took this turn over' });
    expect(entry.letGo).toBe('taken-over');
    expect(entry.signal.aborted).toBe(true);
    entry.deadline?.dispose();
  });

  it('refuses a decision it already acted on', async () => {
    const entry = await recordedTurn();
    const approval = await decidedApproval(entry, { path: 'x' }, 'allow');
    await bed.controlPlane.approvals.consume({ id: approval.id, workerId: WORKER });
    const decision = await gate.beforeToolCall(
      entry,
      callOf(writeFile, { path: 'x' }),
      writeFile,
      resumeWith([approval]),
    );
    expect(decision).toEqual({
      allow: false,
      reason: `its approval (${approval.id}, allowed) had already been acted on, so it was not run again`,
    });
    expect(entry.letGo).toBeUndefined();
    entry.deadline?.dispose();
  });

  it('runs again a read-only call let run before, but not one that writes', async () => {
    const entry = await recordedTurn();
    expect(
      await gate.beforeToolCall(entry, callOf(readFile, { path: 'r' }, 1), readFile, resumeWith([], [1])),
    ).toEqual({
      allow: true,
    });
    const decision = await gate.beforeToolCall(
      entry,
      callOf(writeFile, { path: 'w' }, 2),
      writeFile,
      resumeWith([], [2]),
    );
    expect(decision).toEqual({
      allow: false,
      reason:
        'the worker running this turn stopped while this call was under way, so it may have run; it was not run again: check its effect before calling it again',
    });
    entry.deadline?.dispose();
  });
});
