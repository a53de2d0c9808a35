import os from 'node:os';
import type { ApprovalRecord } from '@switchyard/control-plane';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { withApprovals } from './approvals-source';

// On PostgreSQL these commands talk to the database directly: they work beside any number of running
// daemons and need neither a daemon's address nor its token (an answer from any process on the
// database reaches the turn, whichever worker holds it). On embedded PGlite a running daemon holds the
// database: they go through its HTTP API then (`withApprovals`), with the same output.

const APPROVAL_ID = /^approval_[0-9a-f-]{36}$/;
/** A malformed id is a usage error, as a malformed flag is: exit code 2. */
const USAGE_EXIT = 2;
const LIST_LIMIT = 50;

/** Arguments shown whole in a list line; longer ones show their size, head and tail. */
const LIST_ARGUMENT_CHARACTERS = 200;
const LIST_PREVIEW_CHARACTERS = 80;

/**
 * A list's line of an approval's arguments: whole when short (`JSON.stringify` keeps every space
 * and line break visible as written), else their size, head and tail and how to see them all. Never
 * whitespace-collapsed or cut silently: what an operator reads is what runs, or says it is not all.
 */
function argumentsLine(approval: ApprovalRecord): string {
  const text = approval.arguments === undefined ? undefined : JSON.stringify(approval.arguments);
  if (text !== undefined && text.length <= LIST_ARGUMENT_CHARACTERS) return text;
  const head =
    text?.slice(0, LIST_PREVIEW_CHARACTERS) ??
    approval.argumentsPreview?.head.slice(0, LIST_PREVIEW_CHARACTERS);
  const tail =
    text?.slice(-LIST_PREVIEW_CHARACTERS) ?? approval.argumentsPreview?.tail.slice(-LIST_PREVIEW_CHARACTERS);
  return `${approval.argumentsBytes.toLocaleString('en-US')} bytes, not all shown: ${JSON.stringify(head)} … ${JSON.stringify(tail)} (switchyard approvals show ${approval.id})`;
}

/** `allowed by cli:ops@host: reason`, or `expires <time>` while pending. */
function decision(approval: ApprovalRecord): string {
  if (approval.status === 'pending') return `expires ${approval.expiresAt}`;
  const by = approval.answeredBy === undefined ? '' : ` by ${approval.answeredBy}`;
  return `${approval.status}${by}${approval.reason === undefined ? '' : `: ${approval.reason}`}`;
}

function describe(approval: ApprovalRecord): string {
  return `${approval.id} ${approval.agentId} (${approval.source}) ${approval.toolKey}: ${approval.activity} — asked ${approval.createdAt}, ${decision(approval)}`;
}

/** Who answers from this terminal, as recorded with the answer. */
function answerer(env: Readonly<Record<string, string | undefined>>): string {
  let user = env.USER ?? env.LOGNAME;
  try {
    user ??= os.userInfo().username;
  } catch {
    // No user entry (a container's random uid): the host is still said.
  }
  return `cli:${user ?? 'unknown'}@${os.hostname()}`;
}

/**
 * `switchyard approvals list [--agent NAME] [--all]`: approvals of held tool calls, newest first:
 * pending ones (every agent's, or one agent's), or with `--all` the recent ones whatever their state.
 */
export async function approvalsListCommand(
  config: WorkerConfig,
  options: { agent?: string; all: boolean; json: boolean },
  io: CommandIO,
): Promise<number> {
  const agentIds = options.agent === undefined ? undefined : [resolveAgent(config, options.agent).id];
  const approvals = await withApprovals(
    config,
    (source) =>
      source.list({ ...(agentIds === undefined ? {} : { agentIds }), all: options.all, limit: LIST_LIMIT }),
    () => [],
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify(approvals)}\n`);
    return 0;
  }
  const whose = options.agent === undefined ? '' : ` of agent ${options.agent}`;
  if (approvals.length === 0) {
    io.stdout.write(`No ${options.all ? '' : 'pending '}approvals${whose}.\n`);
    return 0;
  }
  io.stdout.write(
    `${approvals.length} ${options.all ? '' : 'pending '}approval${approvals.length === 1 ? '' : 's'}${whose}, newest first:\n`,
  );
  for (const approval of approvals) {
    io.stdout.write(
      `- ${describe(approval)}\n  turn ${approval.turnId}, arguments: ${argumentsLine(approval)}\n`,
    );
  }
  return 0;
}

/**
 * `switchyard approvals show <id> [--json]`: one approval with its arguments whole (pretty JSON,
 * every character as stored): what runs if it is allowed.
 *
 * Contract: exit code 2 with a message for an id that is not of an approval's form, 1 for an unknown approval.
 */
export async function approvalsShowCommand(
  config: WorkerConfig,
  request: { id: string; json: boolean },
  io: CommandIO,
): Promise<number> {
  if (!APPROVAL_ID.test(request.id)) {
    io.stderr.write(
      `switchyard: approvals show: ${JSON.stringify(request.id)} is not an approval id (approval_<uuid>)\n`,
    );
    return USAGE_EXIT;
  }
  const approval = await withApprovals(
    config,
    (source) => source.get(request.id),
    () => undefined,
  );
  if (approval === undefined) {
    io.stderr.write(`switchyard: approvals show: no approval ${request.id}\n`);
    return 1;
  }
  if (request.json) {
    io.stdout.write(`${JSON.stringify(approval)}\n`);
    return 0;
  }
  io.stdout.write(
    `${describe(approval)}\nturn ${approval.turnId}, call ${approval.callId}; arguments (${approval.argumentsBytes.toLocaleString('en-US')} bytes, whole):\n${JSON.stringify(approval.arguments, null, 2)}\n`,
  );
  return 0;
}

/**
 * `switchyard approvals allow <id> [--reason TEXT]` and `switchyard approvals deny <id> --reason
 * TEXT`: answers a pending approval. The turn goes on in the worker running it, or in whichever
 * claims it when that worker is gone: an allowed call runs once; a denial's reason is the call's
 * output the model reads.
 *
 * Contract: exit code 2 with a message for an id that is not of an approval's form; 1 for an unknown
 * approval, or one already decided (answered, expired or cancelled).
 */
export async function approvalsAnswerCommand(
  config: WorkerConfig,
  request: { id: string; decision: 'allow' | 'deny'; reason?: string },
  io: CommandIO & { env: Readonly<Record<string, string | undefined>> },
): Promise<number> {
  const verb = request.decision;
  if (!APPROVAL_ID.test(request.id)) {
    io.stderr.write(
      `switchyard: approvals ${verb}: ${JSON.stringify(request.id)} is not an approval id (approval_<uuid>)\n`,
    );
    return USAGE_EXIT;
  }
  return withApprovals(
    config,
    async (source) => {
      const outcome = await source.answer({
        id: request.id,
        decision: request.decision,
        ...(request.reason === undefined ? {} : { reason: request.reason }),
        answeredBy: answerer(io.env),
      });
      if (outcome === undefined) {
        io.stderr.write(`switchyard: approvals ${verb}: no approval ${request.id}\n`);
        return 1;
      }
      if (outcome.status === 'already-decided') {
        io.stderr.write(
          `switchyard: approvals ${verb}: ${request.id} is already ${decision(outcome.approval)}\n`,
        );
        return 1;
      }
      const { approval } = outcome;
      io.stdout.write(
        `${verb === 'allow' ? 'Allowed' : 'Denied'} ${approval.toolKey} (${approval.activity}) of turn ${approval.turnId}, agent ${approval.agentId}: ${
          verb === 'allow'
            ? 'the call runs once, in whichever worker holds the turn.'
            : 'the model gets the reason as the call’s output.'
        }\n`,
      );
      return 0;
    },
    () => {
      io.stderr.write(`switchyard: approvals ${verb}: no approval ${request.id} (nothing is recorded yet)\n`);
      return 1;
    },
  );
}
