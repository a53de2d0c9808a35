import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, unwrap } from '../api/client';
import { type Approval, usePendingApprovals } from '../api/pending-approvals';
import { useCanWrite } from '../session';
import { Collapsed } from '../ui/collapsed';
import { ErrorAlert } from '../ui/error-alert';
import { Fact, Facts } from '../ui/facts';
import { formatJson, formatTime } from '../ui/format';
import { Loading } from '../ui/loading';
import { useAction } from '../ui/use-action';

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

  const answer = (decision: 'allow' | 'deny') => {
    const trimmed = reason.trim();
    answering.run(
      unwrap(
        api.POST('/v1/approvals/{id}', {
          params: { path: { id: approval.id } },
          body: trimmed === '' ? { decision } : { decision, reason: trimmed },
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
      </Facts>
      <Collapsed summary="Arguments" open>
        {formatJson(approval.arguments)}
      </Collapsed>
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
          <button type="button" disabled={answering.busy} onClick={() => answer('allow')}>
            Allow
          </button>
          <button type="button" class="danger" disabled={answering.busy} onClick={() => answer('deny')}>
            Deny
          </button>
        </div>
      ) : null}
      <ErrorAlert context="Could not answer: " error={answering.error} />
    </article>
  );
}
