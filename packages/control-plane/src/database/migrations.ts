/** One versioned schema change. Versions only grow; an applied migration is never edited. */
export interface Migration {
  /** Applied in ascending order, each once. */
  version: number;
  /** A short label stored beside the version. */
  name: string;
  /** The script, run in one transaction. */
  sql: string;
}

/** The control plane's schema, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'schedules, runs, jobs, workflows, task results',
    sql: `
CREATE TABLE switchyard.schedules (
  id uuid PRIMARY KEY,
  agent_id text NOT NULL,
  name text NOT NULL,
  prompt text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('cron', 'once')),
  cron text,
  time_zone text NOT NULL,
  run_at timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled', 'finished')),
  next_fire_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  CHECK ((kind = 'cron') = (cron IS NOT NULL)),
  CHECK ((kind = 'once') = (run_at IS NOT NULL)),
  CHECK (status <> 'active' OR next_fire_at IS NOT NULL)
);
CREATE UNIQUE INDEX schedules_active_name ON switchyard.schedules (agent_id, name) WHERE status = 'active';
CREATE INDEX schedules_agent ON switchyard.schedules (agent_id, created_at);
CREATE INDEX schedules_due ON switchyard.schedules (next_fire_at) WHERE status = 'active';

CREATE TABLE switchyard.schedule_runs (
  id uuid PRIMARY KEY,
  schedule_id uuid NOT NULL REFERENCES switchyard.schedules (id),
  agent_id text NOT NULL,
  slot timestamptz NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'enqueued' CHECK (status IN ('enqueued', 'running', 'completed', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at timestamptz,
  completed_at timestamptz,
  error text,
  UNIQUE (schedule_id, slot)
);

CREATE TABLE switchyard.background_jobs (
  id uuid PRIMARY KEY,
  agent_id text NOT NULL,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE switchyard.workflows (
  id uuid PRIMARY KEY,
  agent_id text NOT NULL,
  name text NOT NULL,
  definition jsonb NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE switchyard.workflow_tasks (
  workflow_id uuid NOT NULL REFERENCES switchyard.workflows (id) ON DELETE CASCADE,
  task_id text NOT NULL,
  input jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  PRIMARY KEY (workflow_id, task_id)
);

CREATE TABLE switchyard.task_results (
  id uuid PRIMARY KEY,
  workflow_id uuid NOT NULL,
  task_id text NOT NULL,
  result jsonb NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workflow_id, task_id),
  FOREIGN KEY (workflow_id, task_id) REFERENCES switchyard.workflow_tasks (workflow_id, task_id) ON DELETE CASCADE
);
`,
  },
  {
    version: 2,
    name: 'workflow orchestration, task turns and background agent jobs',
    sql: `
-- pg-boss creates its schema with CREATE SCHEMA IF NOT EXISTS, which two processes starting at once on
-- an empty database can both run (one fails on pg_namespace's unique index). Created here, under the
-- migration lock, it exists before any process starts pg-boss.
CREATE SCHEMA IF NOT EXISTS pgboss;
ALTER TABLE switchyard.workflows ADD COLUMN finished_at timestamptz;
ALTER TABLE switchyard.workflows ADD COLUMN max_concurrent_tasks integer NOT NULL DEFAULT 4;
ALTER TABLE switchyard.workflow_tasks DROP CONSTRAINT workflow_tasks_status_check;
ALTER TABLE switchyard.workflow_tasks ADD CONSTRAINT workflow_tasks_status_check
  CHECK (status IN ('pending', 'queued', 'running', 'completed', 'failed', 'cancelled'));
ALTER TABLE switchyard.workflow_tasks ADD COLUMN position integer NOT NULL DEFAULT 0;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN prompt text;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN result_schema jsonb;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN depends_on text[] NOT NULL DEFAULT '{}';
ALTER TABLE switchyard.workflow_tasks ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN error text;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN started_at timestamptz;
ALTER TABLE switchyard.workflow_tasks ADD COLUMN finished_at timestamptz;
ALTER TABLE switchyard.background_jobs ADD COLUMN error text;
ALTER TABLE switchyard.background_jobs ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE switchyard.background_jobs ADD COLUMN finished_at timestamptz;
CREATE INDEX workflows_agent ON switchyard.workflows (agent_id, created_at);
CREATE INDEX background_jobs_agent ON switchyard.background_jobs (agent_id, created_at);
`,
  },
  {
    version: 3,
    name: 'daemon turn records',
    sql: `
-- One row per turn a worker daemon ran (API, schedule, job or task turns): written when the turn
-- starts and again when it ends, so a turn cancelled at shutdown or cut off by a crash stays on record.
CREATE TABLE switchyard.turns (
  id text PRIMARY KEY,
  agent_id text NOT NULL,
  source text NOT NULL CHECK (source IN ('api', 'schedule', 'job', 'task')),
  source_id text,
  prompt text NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN
    ('running', 'completed', 'ended-by-tool', 'aborted', 'max-iterations', 'failed', 'interrupted')),
  output text NOT NULL DEFAULT '',
  usage jsonb NOT NULL DEFAULT '{}',
  iterations integer NOT NULL DEFAULT 0,
  error text,
  events jsonb,
  events_dropped integer NOT NULL DEFAULT 0,
  worker_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  heartbeat_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  ended_at timestamptz,
  CHECK ((status = 'running') = (ended_at IS NULL))
);
CREATE INDEX turns_agent ON switchyard.turns (agent_id, created_at);
CREATE INDEX turns_running ON switchyard.turns (heartbeat_at) WHERE status = 'running';
`,
  },
  {
    version: 4,
    name: 'hand-back of interrupted turns: current queue job per unit, attempt per turn',
    sql: `
-- The pg-boss job that currently carries each unit of work. A unit whose turn was interrupted is
-- handed back with a new job (the old one is cancelled), so a delivery of any other job id (a late
-- one of the old job) claims nothing. NULL: the unit's first job, whose id is not recorded (rows
-- from before this migration) or, for a schedule run, is the run's id.
ALTER TABLE switchyard.workflow_tasks ADD COLUMN job_id uuid;
ALTER TABLE switchyard.background_jobs ADD COLUMN job_id uuid;
ALTER TABLE switchyard.schedule_runs ADD COLUMN job_id uuid;
-- The attempt (delivery) of its unit a turn ran: what an interrupted turn hands back, and the fence
-- that keeps a slow worker's late result out once another attempt has started.
ALTER TABLE switchyard.turns ADD COLUMN attempt integer CHECK (attempt IS NULL OR attempt >= 1);
`,
  },
  {
    version: 5,
    name: 'the Brain: knowledge pages per agent, their versions, full-text search',
    sql: `
-- One row per page: its current version. A forgotten page is archived (archived_at), never deleted.
-- search is written with every version by the statement that writes the page (a generated column
-- cannot hold it: array_to_string is not immutable): title weight A, tags B, body D.
CREATE TABLE switchyard.brain_pages (
  id uuid PRIMARY KEY,
  agent_id text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  search tsvector NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  archived_at timestamptz
) WITH (toast_tuple_target = 8160);
-- Recall tests each matching page's search vector against every term of the query: a vector TOASTed
-- (compressed, out of line) would be fetched and decompressed for each test, three times the cost of
-- the whole query. Kept inline and uncompressed while the row fits a page (bodies go out first).
ALTER TABLE switchyard.brain_pages ALTER COLUMN search SET STORAGE MAIN;
-- A title names one active page per agent (case-insensitive): writing a title again rewrites that page.
CREATE UNIQUE INDEX brain_pages_active_title ON switchyard.brain_pages (agent_id, lower(title))
  WHERE archived_at IS NULL;
CREATE INDEX brain_pages_agent ON switchyard.brain_pages (agent_id, updated_at);
CREATE INDEX brain_pages_search ON switchyard.brain_pages USING gin (search);
CREATE INDEX brain_pages_tags ON switchyard.brain_pages USING gin (tags);

-- Every version a write replaced, as it was (the current version is the page row itself).
CREATE TABLE switchyard.brain_page_versions (
  page_id uuid NOT NULL REFERENCES switchyard.brain_pages (id),
  version integer NOT NULL CHECK (version >= 1),
  title text NOT NULL,
  body text NOT NULL,
  tags text[] NOT NULL,
  written_at timestamptz NOT NULL,
  PRIMARY KEY (page_id, version)
);
`,
  },
  {
    version: 6,
    name: 'approvals of held tool calls, turns waiting for them, turn cancellation',
    sql: `
-- A turn whose tool call is held for an operator's approval waits as 'waiting-approval' (not ended),
-- with what another process needs to continue it if this one stops: its checkpoint (transcript,
-- events so far, and what the worker needs to rebuild the turn). A released turn (its process shut
-- down) or one whose heartbeat went stale is continued by any process once its approvals are decided.
ALTER TABLE switchyard.turns DROP CONSTRAINT turns_status_check;
ALTER TABLE switchyard.turns ADD CONSTRAINT turns_status_check CHECK (status IN
  ('running', 'waiting-approval', 'completed', 'ended-by-tool', 'aborted', 'max-iterations', 'failed',
   'interrupted'));
ALTER TABLE switchyard.turns DROP CONSTRAINT turns_check;
ALTER TABLE switchyard.turns ADD CONSTRAINT turns_open_until_ended
  CHECK ((status IN ('running', 'waiting-approval')) = (ended_at IS NULL));
ALTER TABLE switchyard.turns ADD COLUMN checkpoint jsonb;
ALTER TABLE switchyard.turns ADD COLUMN released_at timestamptz;
-- The turn's unit (task, job or schedule run) no longer rides on its queue job: the job was
-- cancelled when a call was first held, so the queue never delivers the unit again while it waits;
-- the turn's end settles the unit instead.
ALTER TABLE switchyard.turns ADD COLUMN unit_detached boolean NOT NULL DEFAULT false;
ALTER TABLE switchyard.turns ADD COLUMN cancel_requested text;
ALTER TABLE switchyard.turns ADD COLUMN updated_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE INDEX turns_waiting ON switchyard.turns (heartbeat_at) WHERE status = 'waiting-approval';
CREATE INDEX turns_created ON switchyard.turns (created_at, id);
CREATE INDEX turns_updated ON switchyard.turns (updated_at);

CREATE TABLE switchyard.approvals (
  id text PRIMARY KEY,
  turn_id text NOT NULL REFERENCES switchyard.turns (id),
  call_id text NOT NULL,
  agent_id text NOT NULL,
  source text NOT NULL,
  tool_key text NOT NULL,
  activity text NOT NULL,
  arguments jsonb NOT NULL,
  approvers text[] NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'allowed', 'denied', 'expired', 'cancelled')),
  reason text,
  answered_by text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  -- Set once, by the worker that acts on the decision: an allowed call runs at most once.
  consumed_at timestamptz,
  consumed_by text,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (turn_id, call_id),
  CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX approvals_pending ON switchyard.approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_created ON switchyard.approvals (created_at, id);
CREATE INDEX approvals_updated ON switchyard.approvals (updated_at);
`,
  },
  {
    version: 7,
    name: "turns may end 'incomplete' (the final response was cut off)",
    sql: `
-- A turn whose final answer came back incomplete (max_output_tokens, content_filter) ends as such
-- instead of 'completed'; its error column says why.
ALTER TABLE switchyard.turns DROP CONSTRAINT turns_status_check;
ALTER TABLE switchyard.turns ADD CONSTRAINT turns_status_check CHECK (status IN
  ('running', 'waiting-approval', 'completed', 'incomplete', 'ended-by-tool', 'aborted', 'max-iterations',
   'failed', 'interrupted'));
`,
  },
  {
    version: 8,
    name: 'trace context carried with workflows and background jobs',
    sql: `
-- The W3C traceparent of the tool call that started the work: the task and job turns that run it,
-- in any process, continue that trace. Null for work started without one.
ALTER TABLE switchyard.workflows ADD COLUMN trace_parent text;
ALTER TABLE switchyard.background_jobs ADD COLUMN trace_parent text;
`,
  },
  {
    version: 9,
    name: 'Idempotency-Key claims and first answers of the HTTP API',
    sql: `
-- One row per Idempotency-Key a client sent with a request that creates something, per agent and
-- operation ('start-turn', 'start-workflow'). The INSERT that claims a key is the atomic step: any
-- process on the database sees the claim. resource_id is chosen at the claim (the turn's id, or the
-- key the workflow is stored under), so whichever process goes on with the claim creates the same
-- resource, which the resource's own unique key lets exist once. 'claimed' until the first answer
-- is stored ('answered'); 'released' when its process could not create anything (a retry goes on
-- at once). A claim whose process died is taken over once claimed_at is old (claims counts the
-- claims and fences the answer). Rows are deleted once expires_at has passed.
CREATE TABLE switchyard.idempotency_keys (
  agent_id text NOT NULL,
  operation text NOT NULL CHECK (operation IN ('start-turn', 'start-workflow')),
  key text NOT NULL,
  fingerprint text NOT NULL,
  resource_id text NOT NULL,
  status text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'released', 'answered')),
  claims integer NOT NULL DEFAULT 1 CHECK (claims >= 1),
  claimed_by text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  response_status integer CHECK (response_status IS NULL OR response_status BETWEEN 100 AND 599),
  response_headers jsonb,
  response_body text,
  answered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (agent_id, operation, key),
  CHECK ((status = 'answered') = (response_status IS NOT NULL AND response_headers IS NOT NULL
    AND response_body IS NOT NULL AND answered_at IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON switchyard.idempotency_keys (expires_at);
`,
  },
  {
    version: 10,
    name: 'approvals keyed by the call item of their turn, arguments stored whole with their size',
    sql: `
-- An endpoint may reuse a call_id in a later response of the same turn: a held call is the item at
-- call_index of its turn's transcript. Approvals recorded before this have no index and keep their
-- call_id key.
ALTER TABLE switchyard.approvals ADD COLUMN call_index integer CHECK (call_index >= 0);
ALTER TABLE switchyard.approvals DROP CONSTRAINT approvals_turn_id_call_id_key;
CREATE UNIQUE INDEX approvals_turn_call_index ON switchyard.approvals (turn_id, call_index)
  WHERE call_index IS NOT NULL;
CREATE UNIQUE INDEX approvals_turn_call_id ON switchyard.approvals (turn_id, call_id)
  WHERE call_index IS NULL;
-- The arguments are stored whole (what an operator allows is exactly what runs); lists show a
-- head and a tail of large ones, and the size of every one.
ALTER TABLE switchyard.approvals ADD COLUMN arguments_bytes integer;
UPDATE switchyard.approvals SET arguments_bytes = octet_length(arguments::text);
ALTER TABLE switchyard.approvals ALTER COLUMN arguments_bytes SET NOT NULL;
ALTER TABLE switchyard.approvals ADD COLUMN arguments_head text;
ALTER TABLE switchyard.approvals ADD COLUMN arguments_tail text;
`,
  },
  {
    version: 11,
    name: 'the Brain: per-agent usage for quotas, earlier versions dated by their replacement for retention',
    sql: `
-- A version's age for retention counts from when it was replaced, not from when it was written: the
-- replacing version's write, or the page's latest write for the newest one. Its agent is kept with it,
-- so one agent's versions are found (and pruned oldest first) without a join.
ALTER TABLE switchyard.brain_page_versions ADD COLUMN agent_id text;
ALTER TABLE switchyard.brain_page_versions ADD COLUMN replaced_at timestamptz;
UPDATE switchyard.brain_page_versions v
SET agent_id = p.agent_id,
    replaced_at = coalesce(
      (SELECT n.written_at FROM switchyard.brain_page_versions n
       WHERE n.page_id = v.page_id AND n.version = v.version + 1),
      p.updated_at)
FROM switchyard.brain_pages p WHERE p.id = v.page_id;
ALTER TABLE switchyard.brain_page_versions ALTER COLUMN agent_id SET NOT NULL;
ALTER TABLE switchyard.brain_page_versions ALTER COLUMN replaced_at SET NOT NULL;
CREATE INDEX brain_page_versions_agent_replaced ON switchyard.brain_page_versions (agent_id, replaced_at);
CREATE INDEX brain_page_versions_replaced ON switchyard.brain_page_versions (replaced_at);
CREATE INDEX brain_pages_forgotten ON switchyard.brain_pages (archived_at) WHERE archived_at IS NOT NULL;
CREATE INDEX brain_pages_agent_forgotten ON switchyard.brain_pages (agent_id, archived_at)
  WHERE archived_at IS NOT NULL;

-- What each agent's Brain holds: its active pages, and the bytes of every body stored for it (pages,
-- forgotten ones and earlier versions), each counted as at least 1024 bytes. Kept by every write, forget
-- and prune in the statement or transaction that makes the change.
CREATE TABLE switchyard.brain_usage (
  agent_id text PRIMARY KEY,
  pages integer NOT NULL CHECK (pages >= 0),
  bytes bigint NOT NULL CHECK (bytes >= 0)
);
INSERT INTO switchyard.brain_usage (agent_id, pages, bytes)
SELECT agent_id, sum(pages)::integer, sum(bytes)::bigint FROM (
  SELECT agent_id, count(*) FILTER (WHERE archived_at IS NULL) AS pages,
         sum(greatest(octet_length(body), 1024)) AS bytes
  FROM switchyard.brain_pages GROUP BY agent_id
  UNION ALL
  SELECT agent_id, 0, sum(greatest(octet_length(body), 1024))
  FROM switchyard.brain_page_versions GROUP BY agent_id
) stored GROUP BY agent_id;
`,
  },
  {
    version: 12,
    name: 'a journal per turn: its model responses and tool calls, recorded before the turn moves on',
    sql: `
-- Append-only: a model response (position: its step), a call about to run and a call's output
-- (position: the call's item in the transcript). The entry is JSON text, not jsonb, so that what is
-- replayed is exactly what was recorded (jsonb cannot hold a \\u0000 escape). A turn resumed after
-- its worker stopped reads them back; its rows go with it.
CREATE TABLE switchyard.turn_journal (
  turn_id text NOT NULL REFERENCES switchyard.turns (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('response', 'call-start', 'call-output')),
  position integer NOT NULL CHECK (position >= 0),
  entry text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (turn_id, kind, position)
);
-- How often a turn was resumed from its journal, and when last.
ALTER TABLE switchyard.turns ADD COLUMN resumed_count integer NOT NULL DEFAULT 0;
ALTER TABLE switchyard.turns ADD COLUMN resumed_at timestamptz;
-- A unit's next attempt finds the interrupted one before it.
CREATE INDEX turns_unit_attempt ON switchyard.turns (source, source_id, attempt) WHERE source_id IS NOT NULL;
`,
  },
  {
    version: 13,
    name: "a schedule's create key, so a create run again creates one schedule",
    sql: `
ALTER TABLE switchyard.schedules ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX schedules_idempotency_key ON switchyard.schedules (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
`,
  },
  {
    version: 14,
    name: 'the turn whose tool call started a workflow or background job; the file a held write_file replaces',
    sql: `
-- Null for a start from the API or the CLI. Not a foreign key: a turn's row may be removed with
-- its history while the work it started is kept.
ALTER TABLE switchyard.workflows ADD COLUMN parent_turn_id text;
ALTER TABLE switchyard.background_jobs ADD COLUMN parent_turn_id text;
-- What a held write_file would replace, read when the approval was asked for (see ApprovalFileBefore).
ALTER TABLE switchyard.approvals ADD COLUMN file_before jsonb;
`,
  },
  {
    version: 15,
    name: "agent budgets: tokens and starts counted per agent and minute, turns admitted at once, 'budget-exceeded'",
    sql: `
-- Tokens an agent's turns spent, by minute, as each model response's usage is recorded: a rolling
-- day is the sum of its last 1440 minutes. Rows older than a day and an hour are pruned as rows are added.
CREATE TABLE switchyard.agent_token_usage (
  agent_id text NOT NULL,
  minute timestamptz NOT NULL,
  tokens bigint NOT NULL CHECK (tokens >= 0),
  PRIMARY KEY (agent_id, minute)
);
-- Work an agent started, by kind and minute, counted in the transaction that starts it: a rolling
-- hour is the sum of its last 60 minutes.
CREATE TABLE switchyard.agent_starts (
  agent_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('schedule', 'schedule-fire', 'workflow', 'background-job')),
  minute timestamptz NOT NULL,
  count integer NOT NULL CHECK (count >= 0),
  PRIMARY KEY (agent_id, kind, minute)
);
-- When a running turn got its slot among its agent's turns at once (null: still waiting for one), and
-- which limit ended or delayed it.
ALTER TABLE switchyard.turns ADD COLUMN admitted_at timestamptz;
ALTER TABLE switchyard.turns ADD COLUMN limited_by text[] NOT NULL DEFAULT '{}';
UPDATE switchyard.turns SET admitted_at = created_at WHERE status IN ('running', 'waiting-approval');
CREATE INDEX turns_agent_admitted ON switchyard.turns (agent_id)
  WHERE status = 'running' AND admitted_at IS NOT NULL;
ALTER TABLE switchyard.turns DROP CONSTRAINT turns_status_check;
ALTER TABLE switchyard.turns ADD CONSTRAINT turns_status_check CHECK (status IN
  ('running', 'waiting-approval', 'completed', 'incomplete', 'ended-by-tool', 'aborted', 'max-iterations',
   'budget-exceeded', 'failed', 'interrupted'));
`,
  },
];
