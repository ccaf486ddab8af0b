import { existsSync } from "node:fs"
import { type PlaywrightTestConfig, defineConfig, devices } from "@playwright/test"
import { E2E_RECONCILE_AFTER_MS } from "./e2e/helpers"

const port = Number(process.env.E2E_PORT ?? 3100)
const baseURL = `http://127.0.0.1:${port}`
// A second server, started with UPSTREAM_CONVERSIONS_API=orchestrations, for the conversions
// desk through the service's Orchestrations API (e2e/orchestrations.spec.ts).
// It runs with STEP_UP=webauthn and is browsed at http://localhost:… (WebAuthn refuses an IP
// address as RP ID), so e2e/step-up.spec.ts registers a passkey and approves with it there.
const orchestrationsPort = port + 50
const orchestrationsURL = `http://127.0.0.1:${orchestrationsPort}`
const orchestrationsPublicURL = `http://localhost:${orchestrationsPort}`
// A third server with single sign-on against a real OpenID provider (panva's oidc-provider,
// scripts/e2e-oidc-provider.mjs) on its own loopback port (e2e/sso.spec.ts).
const ssoPort = port + 60
const ssoURL = `http://127.0.0.1:${ssoPort}`
const oidcProviderPort = port + 70
const oidcProviderURL = `http://127.0.0.1:${oidcProviderPort}`
// Two instances on one Postgres database behind a proxy, started by e2e/stream-failover.spec.ts
// itself (the proxy on port+90, the instances on +91 and +92).
const failoverURL = `http://127.0.0.1:${port + 90}`
// The standalone server started as the image starts it (e2e/standalone.spec.ts).
const standalonePort = port + 80
const standaloneURL = `http://127.0.0.1:${standalonePort}`
const oidcClient = { OIDC_CLIENT_ID: "treasury-console", OIDC_CLIENT_SECRET: "e2e-oidc-client-secret-0123456789" }
// bcrypt of CHECKER2_PASSWORD in e2e/helpers.ts
const CHECKER2 = { email: "checker2@example.com", passwordHash: "$2b$10$oAwqRxWDiZOOTzj0puLcBunu/negBA5KuI2bmcnuj6LWS2krJbi.m" }
// bcrypt of ADMIN2_PASSWORD in e2e/policy-four-eyes.spec.ts: the step-up server's second admin, who approves a policy change.
const ADMIN2 = { email: "admin2@example.com", passwordHash: "$2b$10$QO905htnmmnu4lasM53JpuhMH2CYtsdSOTgVn1SjomDpEeO9EUsj." }
// npm run test:e2e runs the suite as two Playwright processes side by side (scripts/e2e-shards.mjs),
// each with its own servers on its own ports, one test at a time each:
//   E2E_SHARD=a: the main server alone, with the chromium specs of SHARD_A (then the secrets check of its log);
//   E2E_SHARD=b: every server, the other chromium specs and every other project.
// Unset (npx playwright test), one process runs everything, as before.
const shard = process.env.E2E_SHARD === "a" || process.env.E2E_SHARD === "b" ? process.env.E2E_SHARD : null
const SHARD_A = /(^|[\\/])(trade|pre-trade|conversions|admin|security|approvals|executions|stream)\.spec\.ts$/
const OTHER_SERVERS = /(secrets|orchestrations|step-up|staff|policy-four-eyes|sso|standalone|stream-failover)\.spec\.ts/
const chromiumFiles =
  shard === "a" ? { testMatch: SHARD_A, testIgnore: OTHER_SERVERS } : shard === "b" ? { testIgnore: [OTHER_SERVERS, SHARD_A] } : { testIgnore: OTHER_SERVERS }
/** scripts/e2e-server.mjs gives its server 20 s to stop after a SIGTERM, then kills it. */
const SERVER_SHUTDOWN = { signal: "SIGTERM" as const, timeout: 25_000 }
type WebServer = Extract<NonNullable<PlaywrightTestConfig["webServer"]>, unknown[]>[number]
const systemChromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium"
const executablePath = existsSync(systemChromium) ? systemChromium : undefined

const webServers: WebServer[] = [
  {
    command: "node scripts/e2e-server.mjs",
    // SIGTERM, not Playwright's default SIGKILL: the script stops its server's own process group, then exits.
    gracefulShutdown: SERVER_SHUTDOWN,
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    // A second trader (checker2@example.com) besides the demo users: e2e/inbox.spec.ts needs two people who may approve one request.
    // RECONCILE_AFTER_MS short: e2e/admin.spec.ts's Reconcile now waits that long, not the default 30 s.
    env: {
      E2E_PORT: String(port),
      CONSOLE_USERS: JSON.stringify([{ email: CHECKER2.email, role: "trader", passwordHash: CHECKER2.passwordHash }]),
      RECONCILE_AFTER_MS: String(E2E_RECONCILE_AFTER_MS),
    },
  },
  {
    command: "node scripts/e2e-server.mjs",
    // SIGTERM, not Playwright's default SIGKILL: the script stops its server's own process group, then exits.
    gracefulShutdown: SERVER_SHUTDOWN,
    url: `${orchestrationsURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    // A second admin (admin2@example.com): a policy change there waits for the other admin (e2e/policy-four-eyes.spec.ts).
    env: {
      E2E_PORT: String(orchestrationsPort),
      UPSTREAM_CONVERSIONS_API: "orchestrations",
      STEP_UP: "webauthn",
      E2E_PUBLIC_URL: orchestrationsPublicURL,
      CONSOLE_USERS: JSON.stringify([{ email: ADMIN2.email, role: "admin", passwordHash: ADMIN2.passwordHash }]),
    },
  },
  {
    command: "node scripts/e2e-oidc-provider.mjs",
    url: `${oidcProviderURL}/.well-known/openid-configuration`,
    timeout: 60_000,
    reuseExistingServer: false,
    env: { OIDC_PROVIDER_PORT: String(oidcProviderPort), CONSOLE_URL: ssoURL, ...oidcClient },
  },
  {
    command: "node scripts/e2e-server.mjs",
    // SIGTERM, not Playwright's default SIGKILL: the script stops its server's own process group, then exits.
    gracefulShutdown: SERVER_SHUTDOWN,
    url: `${ssoURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    env: { E2E_PORT: String(ssoPort), OIDC_ISSUER: oidcProviderURL, ...oidcClient },
  },
  {
    command: "node scripts/standalone-server.mjs",
    url: `${standaloneURL}/api/health/live`,
    timeout: 120_000,
    reuseExistingServer: false,
    env: { E2E_PORT: String(standalonePort) },
  },
]

export default defineConfig({
  testDir: "e2e",
  testIgnore: ["perf/**"],
  outputDir: `test-results/${port}`,
  fullyParallel: false,
  // One test at a time per server (each project's `workers: 1`: the tests of one server share
  // its sandbox, settings and counters). Unsharded, two workers: the projects on the other
  // servers (orchestrations, sso, standalone, failover) run beside the main one. Sharded, one
  // worker per process: the two processes are the two tests at a time.
  workers: shard ? 1 : 2,
  retries: process.env.CI ? 1 : 0,
  // Each test's budget. The two shards keep a 2-core machine at a load average of 11 to 14,
  // where every page load, click and axe audit takes 1 to 5 s: in one such run (2026-11-28)
  // 28 tests took over half of the former 60 s and three long flows ran out of it, on both
  // tries, with nothing wrong but the time. What a test waits for has its own, shorter
  // timeout (expect: 10 s); this one only stops a test that hangs.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: `playwright-report/${port}` }]],
  use: {
    baseURL,
    // A trace costs CPU on every action (snapshots, screenshots): in CI only a retry records one
    // (a failure keeps its screenshot and error context); locally every failure keeps its trace.
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts/, workers: 1 },
    { name: "chromium", workers: 1, use: { ...devices["Desktop Chrome"] }, dependencies: ["setup"], ...chromiumFiles },
    // Signs in on its own server (its own auth secret).
    { name: "orchestrations", workers: 1, testMatch: /(orchestrations|step-up|staff|policy-four-eyes)\.spec\.ts/, use: { ...devices["Desktop Chrome"], baseURL: orchestrationsPublicURL } },
    { name: "sso", workers: 1, testMatch: /sso\.spec\.ts/, use: { ...devices["Desktop Chrome"], baseURL: ssoURL } },
    { name: "standalone", workers: 1, testMatch: /standalone\.spec\.ts/, use: { ...devices["Desktop Chrome"], baseURL: standaloneURL } },
    // Starts its own two instances on a fresh Postgres database (the server of TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432) and the proxy in front.
    { name: "failover", workers: 1, testMatch: /stream-failover\.spec\.ts/, use: { ...devices["Desktop Chrome"], baseURL: failoverURL } },
    // Runs after everything else: reads the build output and the server's log for secrets.
    { name: "secrets", workers: 1, testMatch: /secrets\.spec\.ts/, dependencies: ["chromium"] },
  ].filter((project) => shard !== "a" || ["setup", "chromium", "secrets"].includes(project.name)),
  // Shard a needs the main server only (the first).
  webServer: webServers.slice(0, shard === "a" ? 1 : undefined),
})
