import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, unwrap } from '../api/client';
import { type Approval, usePendingApprovals } from '../api/pending-approvals';
import { useCanWrite } from '../session';
import { errorText, formatJson, formatTime } from '../ui/format';

/** `#/approvals`: the calls held for an answer, live; allow or deny each with a reason. */
export function ApprovalsPage() {
  const pending = usePendingApprovals();
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Approvals</h1>
      {pending.error === undefined ? null : (
        <p role="alert" class="error">
          {pending.error}
        </p>
      )}
      {pending.approvals === undefined ? (
        pending.error === undefined ? (
          <p aria-busy="true">Loading approvals…</p>
        ) : null
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const titleId = `approval-${approval.id}`;
  const reasonId = `reason-${approval.id}`;

  const answer = (decision: 'allow' | 'deny') => {
    setBusy(true);
    setError(undefined);
    const trimmed = reason.trim();
    unwrap(
      api.POST('/v1/approvals/{id}', {
        params: { path: { id: approval.id } },
        body: trimmed === '' ? { decision } : { decision, reason: trimmed },
      }),
    )
      .then(onAnswered, (failure: unknown) => setError(errorText(failure)))
      .finally(() => setBusy(false));
  };

  return (
    <article class="approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{approval.activity}</h2>
      <dl class="facts">
        <div>
          <dt>Tool</dt>
          <dd>
            <code>{approval.toolKey}</code>
          </dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd>{approval.agent}</dd>
        </div>
        <div>
          <dt>Turn</dt>
          <dd>
            <Link href={`/turns/${approval.turnId}`}>{approval.turnId}</Link> ({approval.source})
          </dd>
        </div>
        <div>
          <dt>Asked</dt>
          <dd>{formatTime(approval.createdAt)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatTime(approval.expiresAt)}</dd>
        </div>
      </dl>
      <details open>
        <summary>Arguments</summary>
        <pre>{formatJson(approval.arguments)}</pre>
      </details>
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
          <button type="button" disabled={busy} onClick={() => answer('allow')}>
            Allow
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => answer('deny')}>
            Deny
          </button>
        </div>
      ) : null}
      {error === undefined ? null : (
        <p role="alert" class="error">
          Could not answer: {error}
        </p>
      )}
    </article>
  );
}
