import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, unwrap } from '../api/client';
import { type Approval, usePendingApprovals } from '../api/pending-approvals';
import { EditDiff } from '../approvals/edit-diff';
import { useCanWrite } from '../session';
import { ArgumentsText } from '../ui/arguments-text';
import { Collapsed } from '../ui/collapsed';
import { ErrorAlert } from '../ui/error-alert';
import { Fact, Facts } from '../ui/facts';
import { formatJson, formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { useAction } from '../ui/use-action';
import { useResource } from '../ui/use-resource';

/** `#/approvals`: the calls held for an answer, live; allow or deny each with a reason. */
export function ApprovalsPage() {
  const pending = usePendingApprovals();
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Approvals</h1>
      <ErrorAlert error={pending.error} />
      {pending.approvals === undefined ? (
        <Loading error={pending.error} text="Loading approvals…" />
      ) : pending.approvals.length === 0 ? (
        <p class="hint">No call is waiting for an answer.</p>
      ) : (
        <>
          <p class="hint">
            {pending.approvals.length}
            {pending.more ? '+' : ''} pending, newest first.
          </p>
          <ul class="approvals">
            {pending.approvals.map((approval) => (
              <li key={approval.id}>
                <ApprovalCard approval={approval} onAnswered={pending.settle} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ApprovalCard({
  approval,
  onAnswered,
}: {
  approval: Approval;
  onAnswered: (approval: Approval) => void;
}) {
  const canWrite = useCanWrite();
  const [reason, setReason] = useState('');
  const answering = useAction();
  const titleId = `approval-${approval.id}`;
  const reasonId = `reason-${approval.id}`;
  // The arguments as the operator has seen them whole: the call can be allowed only then.
  const [whole, setWhole] = useState<string | undefined>(
    approval.arguments === undefined ? undefined : formatJson(approval.arguments),
  );

  const answer = (decision: 'allow' | 'deny') => {
    const trimmed = reason.trim();
    answering.run(
      unwrap(
        api.POST('/v1/approvals/{id}', {
          params: { path: { id: approval.id } },
          // `via`: the daemon records the answer as given in the console, not by a script.
          body: trimmed === '' ? { decision, via: 'console' } : { decision, reason: trimmed, via: 'console' },
        }),
      ),
      onAnswered,
    );
  };

  return (
    <article class="approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{approval.activity}</h2>
      <Facts>
        <Fact label="Tool">
          <code>{approval.toolKey}</code>
        </Fact>
        <Fact label="Agent">{approval.agent}</Fact>
        <Fact label="Turn">
          <Link href={`/turns/${approval.turnId}`}>{approval.turnId}</Link> ({approval.source})
        </Fact>
        <Fact label="Asked">{formatTime(approval.createdAt)}</Fact>
        <Fact label="Expires">{formatTime(approval.expiresAt)}</Fact>
        <TurnPromptFact turnId={approval.turnId} />
      </Facts>
      <EditDiff approval={approval} />
      <HeldArguments approval={approval} whole={whole} onWhole={setWhole} />
      {canWrite ? (
        // No form: Enter in the reason field must not answer by itself.
        <div class="answer">
          <label for={reasonId}>Reason</label>
          <input
            id={reasonId}
            type="text"
            value={reason}
            onInput={(event) => setReason(event.currentTarget.value)}
          />
          <button
            type="button"
            disabled={answering.busy || whole === undefined}
            title={whole === undefined ? 'Show all of the arguments before allowing the call' : undefined}
            onClick={() => answer('allow')}
          >
            Allow
          </button>
          <button type="button" class="danger" disabled={answering.busy} onClick={() => answer('deny')}>
            Deny
          </button>
          {whole === undefined ? (
            <span class="hint">Show all of the arguments to allow the call.</span>
          ) : null}
        </div>
      ) : null}
      <ErrorAlert context="Could not answer: " error={answering.error} />
    </article>
  );
}

/** What the held call's turn was asked: its title, the whole prompt folded under it. */
function TurnPromptFact({ turnId }: { turnId: string }) {
  const turn = useResource(
    (signal) => unwrap(api.GET('/v1/turns/{id}', { params: { path: { id: turnId } }, signal })),
    [turnId],
  );
  return (
    <Fact label="Prompt" wide>
      {turn.value === undefined ? (
        <span class="hint">{turn.error ?? 'Loading…'}</span>
      ) : (
        <Collapsed summary={turn.value.title === '' ? '(empty prompt)' : turn.value.title}>
          {turn.value.prompt}
        </Collapsed>
      )}
    </Fact>
  );
}

const bytes = (count: number) => `${count.toLocaleString('en-US')} bytes`;

/**
 * A held call's arguments: whole when the list carried them, else their size, head and tail and a
 * button that loads them all (`GET /v1/approvals/{id}/arguments`). Until they are shown whole, the
 * card cannot allow the call: what an operator allows is exactly what they could read.
 */
function HeldArguments({
  approval,
  whole,
  onWhole,
}: {
  approval: Approval;
  whole: string | undefined;
  onWhole: (text: string) => void;
}) {
  const loading = useAction();
  const size = bytes(approval.argumentsBytes);
  if (whole !== undefined) {
    return (
      <section class="held-arguments">
        <h3>Arguments ({size}, all shown)</h3>
        <ArgumentsText text={whole} label={`Arguments of ${approval.toolKey}`} />
      </section>
    );
  }
  const preview = approval.argumentsPreview;
  const load = () =>
    loading.run(
      unwrap(api.GET('/v1/approvals/{id}/arguments', { params: { path: { id: approval.id } } })),
      (answer) => onWhole(formatJson(answer.arguments)),
    );
  return (
    <section class="held-arguments">
      <h3>Arguments ({size}, not all shown)</h3>
      {preview === undefined ? null : (
        <>
          <ArgumentsText text={preview.head} label="Start of the arguments" />
          <p class="hint">… the middle is not shown …</p>
          <ArgumentsText text={preview.tail} label="End of the arguments" />
        </>
      )}
      <button type="button" disabled={loading.busy} onClick={load}>
        Show all {size}
      </button>
      <ErrorAlert context="Could not load the arguments: " error={loading.error} />
    </section>
  );
}
