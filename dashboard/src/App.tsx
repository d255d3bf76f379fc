import { AuthenticationError } from '@sendline/sdk';
import { QueryCache, QueryClient, QueryClientProvider, MutationCache, useQueryClient } from '@tanstack/react-query';
import { Suspense, lazy, useCallback, useEffect, useMemo, useState, useSyncExternalStore, type ComponentType } from 'react';
import { startLive, useLiveConnected, useLiveEvents, type LiveEvent } from './live.ts';
import { Link, match, navigate, useLocation } from './router.tsx';
import { hasSessionCookie, logout, refresh, session } from './session.ts';
import { Loading } from './ui.tsx';
import { Login } from './pages/Login.tsx';
import { audienceNav, audiencePages, audienceRoutes } from './audiences/index.ts';

/** A 401 means the access token ended early (logout elsewhere, revocation): one refresh, then sign-in. */
const onError = (error: unknown) => {
  if (error instanceof AuthenticationError) void refresh();
};
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { staleTime: 10_000, retry: (count, error) => !(error instanceof AuthenticationError) && count < 1 } },
});

type Page = () => Promise<{ default: ComponentType<{ params: Record<string, string> }> }>;
const pages: Record<string, Page> = {
  keys: () => import('./pages/ApiKeys.tsx'),
  contacts: () => import('./pages/Contacts.tsx'),
  contact: () => import('./pages/Contact.tsx'),
  import: () => import('./pages/Import.tsx'),
  campaigns: () => import('./pages/Campaigns.tsx'),
  campaign: () => import('./pages/Campaign.tsx'),
  analytics: () => import('./pages/Analytics.tsx'),
  ...audiencePages,
  webhooks: () => import('./pages/Webhooks.tsx'),
  webhook: () => import('./pages/Webhook.tsx'),
  automations: () => import('./pages/Automations.tsx'),
  automation: () => import('./pages/Automation.tsx'),
  domains: () => import('./pages/Domains.tsx'),
  domain: () => import('./pages/Domain.tsx'),
  events: () => import('./pages/LiveEvents.tsx'),
  users: () => import('./pages/Users.tsx'),
  settings: () => import('./pages/Settings.tsx'),
};
const lazyPages = Object.fromEntries(Object.entries(pages).map(([name, load]) => [name, lazy(load)]));
/**
 * Pages whose code has arrived, rendered as they are: a lazy page suspends on its first render
 * even when its code is there, and React 19 keeps a fallback it revealed on screen for 300 ms.
 */
const loadedPages = new Map<string, ComponentType<{ params: Record<string, string> }>>();
const prefetch = (name: string) => pages[name]().then((module) => void loadedPages.set(name, module.default));

const routes: [pattern: string, page: keyof typeof pages][] = [
  ['/', 'analytics'],
  ['/analytics', 'analytics'],
  ['/keys', 'keys'],
  ['/contacts', 'contacts'],
  ['/contacts/import', 'import'],
  ['/contacts/:id', 'contact'],
  ['/campaigns', 'campaigns'],
  ['/campaigns/:id', 'campaign'],
  ...audienceRoutes,
  ['/webhooks', 'webhooks'],
  ['/webhooks/:id', 'webhook'],
  ['/automations', 'automations'],
  ['/automations/:id', 'automation'],
  ['/domains', 'domains'],
  ['/domains/:id', 'domain'],
  ['/events', 'events'],
  ['/users', 'users'],
  ['/settings', 'settings'],
];

const nav: [to: string, label: string][] = [
  ['/analytics', 'Analytics'],
  ['/contacts', 'Contacts'],
  ['/campaigns', 'Campaigns'],
  ['/automations', 'Automations'],
  ['/keys', 'API keys'],
  ...audienceNav,
  ['/webhooks', 'Webhooks'],
  ['/domains', 'Domains'],
  ['/events', 'Live events'],
  ['/users', 'Users'],
  ['/settings', 'Settings'],
];

/** Which cached answers an event makes stale. */
function staleBy(event: LiveEvent): string[] {
  const [category] = event.type.split('.');
  if (category === 'email' || category === 'campaign') return ['campaigns', 'campaign', 'analytics'];
  if (category === 'import') return ['imports', 'contacts'];
  if (category === 'contact') return ['contacts', 'contact'];
  return [];
}

function Shell() {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const client = useQueryClient();
  const live = useLiveConnected();
  const user = session.get()?.user;
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        for (const key of staleBy(event)) void client.invalidateQueries({ queryKey: [key] });
      },
      [client],
    ),
  );
  useEffect(() => {
    startLive();
    // Page code is fetched ahead, once the first page is up: later page changes need no download.
    const idle = setTimeout(() => Object.keys(pages).forEach((name) => void prefetch(name)), 500);
    return () => clearTimeout(idle);
  }, []);
  useEffect(() => setMenuOpen(false), [path]);

  let found: { page: keyof typeof pages; params: Record<string, string> } | null = null;
  for (const [pattern, page] of routes) {
    const params = match(pattern, path);
    if (params) {
      found = { page, params };
      break;
    }
  }
  const pageName = found?.page;
  // Chosen once per page: switching a shown page from its lazy form to the loaded one would remount it.
  const Page = useMemo(() => pageName && (loadedPages.get(pageName) ?? lazyPages[pageName]), [pageName]);
  const current = (to: string) => path === to || path.startsWith(`${to}/`) || (to === '/analytics' && path === '/');
  return (
    <div className="shell">
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Sendline
        </Link>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <span className={live ? 'live on' : 'live'} title={live ? 'Live updates on' : 'Live updates reconnecting'}>
          {live ? 'Live' : 'Offline'}
        </span>
        <span className="who">{user?.email}</span>
      </header>
      <nav id="nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
        <ul>
          {nav.map(([to, label]) => (
            <li key={to}>
              <Link to={to} aria-current={current(to) ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="nav-foot">
          <a href="/docs">API reference</a>
          <button type="button" className="link" onClick={() => void logout()}>
            Sign out
          </button>
          <button type="button" className="link" onClick={() => void logout(true)}>
            Sign out everywhere
          </button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          {Page && found ? (
            <Page params={found.params} />
          ) : (
            <div>
              <h1>Not found</h1>
              <p>
                There is no page here. <Link to="/">Go to the overview</Link>.
              </p>
            </div>
          )}
        </Suspense>
      </main>
    </div>
  );
}

export function App() {
  const signedIn = useSyncExternalStore(session.subscribe, () => session.get() !== null);
  // Without a session cookie there is nothing to resume: the sign-in page shows at once.
  const [checked, setChecked] = useState(() => !hasSessionCookie());
  useEffect(() => {
    // A reload: the cookie may still hold a session.
    if (!hasSessionCookie()) return;
    refresh()
      .catch(() => false)
      .finally(() => setChecked(true));
  }, []);
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn]);
  if (!checked) return <Loading label="Signing in…" />;
  return (
    <QueryClientProvider client={queryClient}>
      {signedIn ? <Shell /> : <Login onSignedIn={() => navigate(location.pathname.slice(4) || '/', { replace: true })} />}
    </QueryClientProvider>
  );
}
