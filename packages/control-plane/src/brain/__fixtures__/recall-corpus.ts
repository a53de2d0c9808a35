/**
 * A fixed corpus of the pages an engineering agent keeps, with neighbours that share words (three
 * Postgres pages, two API pages, deploys to billing and to staging, two pages about slow exports), and
 * queries written the way a model asks, each with the page that must come first. The queries were
 * written before the ranking was tuned, and not changed to fit it.
 */
export const RECALL_CORPUS: ReadonlyArray<{ title: string; tags: string[]; body: string }> = [
  {
    title: 'Deploying the billing service',
    tags: ['billing', 'deploys'],
    body: 'Billing deploys go through the release pipeline: merge to main, wait for the canary in eu-west-1 to stay green for 30 minutes, then promote with `make promote SERVICE=billing`. Never deploy billing on Fridays; invoices run Friday night.',
  },
  {
    title: 'Billing invoice run',
    tags: ['billing', 'schedule'],
    body: 'The invoice batch runs every Friday at 22:00 UTC. It reads usage from the metering database and writes PDFs to the invoices bucket. If it fails, rerun it with `billing-cli invoices rerun --week`. Customers are emailed on Saturday morning.',
  },
  {
    title: 'Rotating the Postgres credentials',
    tags: ['postgres', 'security'],
    body: 'Database passwords rotate every 90 days. Create the new role password in Vault under secret/db/primary, update the connection pool config, restart the pgbouncer pods one at a time, then revoke the old password.',
  },
  {
    title: 'Postgres backups and restore',
    tags: ['postgres', 'backups'],
    body: 'Nightly base backups with WAL archiving to the backups bucket, kept for 14 days. To restore, pick the base backup taken before the target time and replay WAL with recovery_target_time. A restore drill takes about 40 minutes for the 300 GB primary.',
  },
  {
    title: 'Customer Acme Corp',
    tags: ['customers'],
    body: "Acme's contact is Dana Whitfield (procurement). They pay annually, renewal in March. They asked for SSO with Okta and a dedicated support channel. Their usage peaks at month end.",
  },
  {
    title: 'Customer Globex',
    tags: ['customers'],
    body: 'Globex is on the monthly plan; their contact is Hank Scorpio. They complained about slow exports in the reporting module twice. They prefer email over calls.',
  },
  {
    title: 'On-call escalation',
    tags: ['oncall'],
    body: 'Page the primary on-call through PagerDuty. If nobody acknowledges within 15 minutes, escalate to the secondary, then to the engineering manager. Sev1 incidents need a status page update within 30 minutes.',
  },
  {
    title: 'Incident 2031-04: search outage',
    tags: ['incidents', 'search'],
    body: 'The Elasticsearch cluster ran out of disk when the log index grew, and search returned 503 for two hours. Fix: an index lifecycle policy deleting logs after 7 days, and a disk usage alert at 75%.',
  },
  {
    title: 'Kubernetes node upgrades',
    tags: ['kubernetes'],
    body: 'Upgrade node pools one at a time: cordon, drain with --ignore-daemonsets, wait for the pods to reschedule, then replace the node. Keep at least three nodes ready. The provider upgrades the control plane.',
  },
  {
    title: 'TLS certificate renewal',
    tags: ['security', 'tls'],
    body: "Certificates come from Let's Encrypt through cert-manager and renew 30 days before expiry. The wildcard certificate for *.example.com needs a DNS-01 challenge with the Cloudflare token. Check expiry with `kubectl get certificates`.",
  },
  {
    title: 'Lunch orders',
    tags: ['office'],
    body: 'Team lunch is on Thursdays. Order from the Thai place by 11:00, with vegetarian dishes for Priya and Tom. The budget is 15 euros per person.',
  },
  {
    title: 'Release notes style',
    tags: ['writing'],
    body: 'Release notes start with the user-visible change, then fixes, then internal changes. Keep each line under 100 characters and link the pull request. No marketing words.',
  },
  {
    title: 'Expense reports',
    tags: ['finance'],
    body: 'Submit receipts in the finance tool by the 5th of the month. Travel needs approval beforehand. Meals over 50 euros need the list of attendees.',
  },
  {
    title: 'Onboarding a new engineer',
    tags: ['onboarding'],
    body: 'Create their accounts (GitHub, Google, Slack, PagerDuty) and add them to the engineering group. Give read access to production logs only after the first week. Pair them with a buddy for their first on-call shift.',
  },
  {
    title: 'Rate limits of the public API',
    tags: ['api'],
    body: 'The public API allows 100 requests per minute per token, with bursts up to 200. Going over returns HTTP 429 with a Retry-After header. Enterprise customers can get 1000 per minute on request.',
  },
  {
    title: 'API token revocation',
    tags: ['api', 'security'],
    body: 'Revoke a leaked API token from the admin console or with `api-admin tokens revoke <id>`. Revocation reaches every region within a minute. Tell the customer, and check the audit log for use after the leak.',
  },
  {
    title: 'Staging environment',
    tags: ['staging'],
    body: 'Staging mirrors production at a tenth of its size. Its database is refreshed from an anonymised production snapshot every Sunday. Deploys to staging happen automatically on every merge.',
  },
  {
    title: 'Metering database schema',
    tags: ['billing', 'postgres'],
    body: 'Usage events land in metering.events, partitioned by day; aggregates go to metering.daily_usage, which the invoice run reads. Partitions older than 400 days are dropped.',
  },
  {
    title: 'Vendor comparison for email delivery',
    tags: ['vendors'],
    body: 'We compared Postmark, SendGrid and SES. Postmark had the best deliverability for transactional mail; SES is cheapest at volume. Decision: Postmark for transactional mail, SES for newsletters.',
  },
  {
    title: 'Frontend build times',
    tags: ['frontend'],
    body: 'The web app build took 9 minutes because the icon package was transpiled in full. Per-icon imports and the persistent cache cut it to 3 minutes.',
  },
  {
    title: 'Dependency update policy',
    tags: ['security', 'dependencies'],
    body: 'Renovate opens dependency updates weekly. Patch updates merge automatically when CI passes; minor and major updates need a review. Security advisories are handled within two business days.',
  },
  {
    title: 'Quarterly planning',
    tags: ['planning'],
    body: 'Planning happens in the last two weeks of each quarter. Each team proposes three goals with measurable outcomes; the engineering manager collects them in the planning doc.',
  },
  {
    title: 'Log retention',
    tags: ['logs', 'compliance'],
    body: 'Application logs are kept 30 days in the log cluster and one year in cold storage for compliance. Audit logs are kept seven years. Personal data in logs must be masked.',
  },
  {
    title: 'Data export feature',
    tags: ['reporting'],
    body: 'Exports in the reporting module run as background jobs and produce CSV files of up to 2 GB. Large exports were slow because of a missing index on report_rows(account_id); the index was added in May.',
  },
  {
    title: 'VPN access',
    tags: ['network'],
    body: 'Engineers reach the office network through WireGuard. Ask IT for a peer config; it expires after 180 days. Production access never goes over the VPN, only through the bastion.',
  },
  {
    title: 'Bastion host',
    tags: ['network', 'security'],
    body: 'Production shells go through the bastion with short-lived SSH certificates issued by Vault (ttl 8h). Sessions are recorded. Use `ssh -J bastion.prod host`.',
  },
  {
    title: 'Feature flags',
    tags: ['frontend', 'releases'],
    body: 'Flags live in the flag service; every flag has an owner and an expiry date. Remove a flag within two weeks of a full rollout. Kill switches are flags too, prefixed kill_.',
  },
  {
    title: 'Load testing',
    tags: ['performance'],
    body: 'k6 scripts live in perf/. Run them against staging only, never production, with at most 500 virtual users. The checkout flow sustained 1200 requests per second before p99 latency passed 800 ms.',
  },
  {
    title: 'Caching layer',
    tags: ['performance', 'redis'],
    body: 'Redis caches product pages for 10 minutes. Invalidate by publishing to the cache-bust channel after a product update. Memory is capped at 8 GB with allkeys-lru eviction.',
  },
  {
    title: 'Support ticket triage',
    tags: ['support'],
    body: "New tickets are triaged twice a day. Bugs get a reproduction and a linked issue; questions get an answer from the docs; feature requests go to the product board with the customer's name.",
  },
];

/** Queries and the title of the page that must rank first (with the tags filter, when given). */
export const RECALL_QUERIES: ReadonlyArray<{ query: string; first: string; tags?: string[] }> = [
  { query: 'how do I deploy billing', first: 'Deploying the billing service' },
  { query: 'restore the database from a backup', first: 'Postgres backups and restore' },
  { query: 'rotate the database password', first: 'Rotating the Postgres credentials' },
  { query: 'when does the invoice batch run', first: 'Billing invoice run' },
  { query: 'who is the contact at Acme', first: 'Customer Acme Corp' },
  { query: 'customer complained about slow exports', first: 'Customer Globex' },
  { query: 'escalate when on-call does not acknowledge the page', first: 'On-call escalation' },
  { query: 'why did search go down', first: 'Incident 2031-04: search outage' },
  { query: 'upgrading kubernetes nodes', first: 'Kubernetes node upgrades' },
  { query: 'renew the wildcard certificate', first: 'TLS certificate renewal' },
  { query: 'what to order for team lunch', first: 'Lunch orders' },
  { query: 'how should release notes be written', first: 'Release notes style' },
  { query: 'deadline for expense receipts', first: 'Expense reports' },
  { query: 'accounts to create for a new hire', first: 'Onboarding a new engineer' },
  { query: 'API rate limit 429', first: 'Rate limits of the public API' },
  { query: 'a token leaked', first: 'API token revocation' },
  { query: 'which email provider did we choose', first: 'Vendor comparison for email delivery' },
  { query: 'why is the frontend build slow', first: 'Frontend build times' },
  { query: 'ssh into production', first: 'Bastion host' },
  { query: 'redis eviction policy', first: 'Caching layer' },
  { query: 'deploys -billing', first: 'Staging environment' },
  { query: '"per minute" token', first: 'Rate limits of the public API' },
  { query: 'database', first: 'Metering database schema', tags: ['billing'] },
];
