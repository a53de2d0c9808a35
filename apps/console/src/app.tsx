import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useRoute } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { ApiError, readToken, storeToken } from './api/client';
import { LiveEventsProvider } from './api/live-events';
import { PendingApprovalsProvider, usePendingApprovals } from './api/pending-approvals';
import { ApprovalsPage } from './pages/approvals';
import { SchedulesPage } from './pages/schedules';
import { ToolsPage } from './pages/tools';
import { TurnsPage } from './pages/turns';
import { TurnPage } from './pages/turns-detail';
import { UsagePage } from './pages/usage';
import { loadSession, type Session, SessionContext } from './session';
import { ErrorAlert } from './ui/error-alert';
import { errorText } from './ui/format';
import { HealthBanners } from './ui/health-banners';
import { Loading } from './ui/loading';
import { WorkflowPage } from './workflows/workflow-page';
import { WorkflowsPage } from './workflows/workflows-page';

type Loaded =
  | { state: 'loading' }
  | { state: 'signed-in'; session: Session }
  | { state: 'sign-in'; error?: string };

/** The console: signs in (when the daemon wants a token), then the pages under a navigation bar. */
export function App() {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const refresh = () => {
    loadSession().then(
      (session) => setLoaded({ state: 'signed-in', session }),
      (error: unknown) => {
        const refused = error instanceof ApiError && error.status === 401;
        // A 401 with a token kept: the token is wrong (or was changed), so say so and forget it; a
        // 401 without one just means the daemon wants a token.
        const hadToken = readToken() !== undefined;
        if (refused) storeToken(undefined);
        setLoaded({
          state: 'sign-in',
          ...(refused && !hadToken
            ? {}
            : {
                error: refused ? `The daemon refused that token: ${error.message}` : errorText(error),
              }),
        });
      },
    );
  };
  useEffect(refresh, []);
  if (loaded.state === 'loading') return <Loading />;
  if (loaded.state === 'sign-in') return <SignIn error={loaded.error} onSignedIn={refresh} />;
  return (
    <SessionContext.Provider value={loaded.session}>
      <Router hook={useHashLocation}>
        <Shell
          session={loaded.session}
          onSignOut={() => {
            storeToken(undefined);
            refresh();
          }}
        >
          <Switch>
            <Route path="/turns" component={TurnsPage} />
            <Route path="/turns/:id">{(params) => <TurnPage id={params.id} />}</Route>
            <Route path="/approvals" component={ApprovalsPage} />
            <Route path="/workflows" component={WorkflowsPage} />
            <Route path="/workflows/:id">{(params) => <WorkflowPage id={params.id} />}</Route>
            <Route path="/schedules" component={SchedulesPage} />
            <Route path="/tools" component={ToolsPage} />
            <Route path="/usage" component={UsagePage} />
            <Route>
              <Redirect to="/turns" />
            </Route>
          </Switch>
        </Shell>
      </Router>
    </SessionContext.Provider>
  );
}

function NavLink({ href, children }: { href: string; children: ComponentChildren }) {
  const [active] = useRoute(`${href}/*?`);
  return (
    <Link href={href} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The Approvals link with the live count of pending approvals: "Approvals 2" (named "Approvals 2 pending"). */
function ApprovalsLink() {
  const { approvals, more } = usePendingApprovals();
  return (
    <NavLink href="/approvals">
      Approvals
      {approvals === undefined || approvals.length === 0 ? null : (
        <>
          {' '}
          <span class="badge">
            {approvals.length}
            {more ? '+' : ''}
          </span>
          <span class="visually-hidden"> pending</span>
        </>
      )}
    </NavLink>
  );
}

function Shell({
  session,
  onSignOut,
  children,
}: {
  session: Session;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  return (
    <LiveEventsProvider>
      <PendingApprovalsProvider>
        <header class="top">
          <span class="brand">Switchyard</span>
          <nav aria-label="Pages">
            <NavLink href="/turns">Turns</NavLink>
            <ApprovalsLink />
            <NavLink href="/workflows">Workflows</NavLink>
            <NavLink href="/schedules">Schedules</NavLink>
            <NavLink href="/tools">Tools</NavLink>
            <NavLink href="/usage">Usage</NavLink>
          </nav>
          <span class="who">
            {session.access === 'read-only' ? 'Read-only' : 'Full access'} · v{session.version}
            <button type="button" class="link" onClick={onSignOut}>
              Sign out
            </button>
          </span>
        </header>
        <HealthBanners />
        <main id="main">{children}</main>
      </PendingApprovalsProvider>
    </LiveEventsProvider>
  );
}

function SignIn({ error, onSignedIn }: { error?: string | undefined; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="sign-in">
      <h1>Sign in to Switchyard</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          storeToken(token.trim() === '' ? undefined : token.trim());
          onSignedIn();
        }}
      >
        <label for="token">Bearer or read-only token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit">Sign in</button>
        <ErrorAlert error={error} />
      </form>
      <p class="hint">The token is kept in this tab only and sent in the Authorization header.</p>
    </main>
  );
}
