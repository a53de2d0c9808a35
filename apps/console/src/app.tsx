import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useRoute } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { ApiError, storeToken } from './api/client';
import { Placeholder } from './pages/placeholder';
import { SchedulesPage } from './pages/schedules';
import { ToolsPage } from './pages/tools';
import { loadSession, type Session, SessionContext } from './session';
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
      (error: unknown) =>
        setLoaded({
          state: 'sign-in',
          ...(error instanceof ApiError && error.status === 401
            ? {}
            : { error: error instanceof Error ? error.message : String(error) }),
        }),
    );
  };
  useEffect(refresh, []);
  if (loaded.state === 'loading') return <p aria-busy="true">Loading…</p>;
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
            <Route path="/turns">
              <Placeholder title="Turns" />
            </Route>
            <Route path="/approvals">
              <Placeholder title="Approvals" />
            </Route>
            <Route path="/workflows">
              <WorkflowsPage />
            </Route>
            <Route path="/workflows/:id">{(params) => <WorkflowPage id={params.id} />}</Route>
            <Route path="/schedules">
              <SchedulesPage />
            </Route>
            <Route path="/tools">
              <ToolsPage />
            </Route>
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
    <>
      <header class="top">
        <span class="brand">Switchyard</span>
        <nav aria-label="Pages">
          <NavLink href="/turns">Turns</NavLink>
          <NavLink href="/approvals">Approvals</NavLink>
          <NavLink href="/workflows">Workflows</NavLink>
          <NavLink href="/schedules">Schedules</NavLink>
          <NavLink href="/tools">Tools</NavLink>
        </nav>
        <span class="who">
          {session.access === 'read-only' ? 'Read-only' : 'Full access'} · v{session.version}
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main">{children}</main>
    </>
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
        {error === undefined ? null : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
      <p class="hint">The token is kept in this tab only and sent in the Authorization header.</p>
    </main>
  );
}
