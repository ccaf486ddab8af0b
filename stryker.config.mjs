// Mutation testing of the money path (`npm run test:mutation`, see docs/testing.md).
// `npm run test:mutation -- lib/money.ts` runs one file; without a file, every file of
// `targets`, each against its own tests (scripts/mutation.mjs).

/** Each mutated file and the test files that must catch its mutants. */
export const targets = {
  "lib/money.ts": ["lib/money.test.ts", "lib/schemas/money.test.ts"],
  "lib/schemas/money.ts": ["lib/schemas/money.test.ts"],
  "lib/schemas/metadata.ts": ["lib/schemas/metadata.test.ts"],
  "lib/schemas/quote-execution.ts": ["lib/schemas/quote-execution.test.ts"],
  "lib/schemas/conversion.ts": ["lib/schemas/conversion.test.ts"],
  "lib/schemas/approvals.ts": ["lib/schemas/approvals.test.ts"],
  "lib/console/intents.ts": ["lib/console/intents.test.ts"],
  "lib/console/policy.ts": ["lib/console/policy.test.ts"],
  "lib/console/reconciler.ts": ["lib/console/reconciler.test.ts", "lib/console/notify/notify.test.ts"],
  "lib/console/operations.ts": ["lib/console/operations.test.ts", "lib/console/operations-spans.test.ts"],
  "lib/console/submission.ts": ["lib/console/submission.test.ts", "lib/console/submission-spans.test.ts", "lib/console/order-step-up.test.ts", "lib/console/notify/notify.test.ts"],
  "lib/console/approvals/state.ts": ["lib/console/approvals/state.test.ts"],
  "lib/console/approvals/decisions.ts": ["lib/console/approvals/decisions.test.ts", "lib/console/approvals/holes.test.ts", "lib/console/approvals/requests.test.ts", "lib/console/approvals/tiers.test.ts", "lib/console/approvals/step-up.test.ts", "lib/console/approvals/bulk.test.ts"],
  "lib/console/approvals/expiry.ts": ["lib/console/approvals/expiry.test.ts", "lib/console/approvals/decisions.test.ts", "lib/console/approvals/holes.test.ts", "lib/console/approvals/requests.test.ts"],
  "lib/console/approvals/step-up.ts": ["lib/console/approvals/step-up.test.ts", "lib/console/approvals/bulk.test.ts", "lib/console/session-step-up.test.ts", "lib/console/order-step-up.test.ts"],
  "lib/console/approvals/bulk.ts": ["lib/console/approvals/bulk.test.ts", "lib/console/approvals/tiers.test.ts"],
  "lib/console/approvals/reads.ts": ["lib/console/approvals/decisions.test.ts", "lib/console/approvals/holes.test.ts", "lib/console/approvals/requests.test.ts"],
}

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // Runs the test files scripts/mutation.mjs names in MUTATION_TEST_FILES (all of them without it).
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  checkers: ["typescript"],
  // Written by scripts/mutation.mjs for each file: that file, its tests and what they import
  // (checking every importer of a schema, pages included, took ~10 s a mutant).
  tsconfigFile: "tsconfig.mutation.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: "perTest",
  // The machine is shared: two test processes at most.
  concurrency: 2,
  timeoutMS: 30_000,
  // The first run of every test of a file (decisions.ts: six files) takes over the default 5 minutes on a busy machine.
  dryRunTimeoutMinutes: 30,
  reporters: ["clear-text", "html", "progress"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // The e2e specs stay out of the sandbox copy, but not the secret canaries the notification tests
  // import: without them notify.test.ts failed to load, and Stryker ran its other files alone.
  ignorePatterns: [".next*", ".data", "/e2e/*", "!/e2e/canaries.json", "test-results", "playwright-report", "reports", "public", "*.tsbuildinfo"],
  mutate: Object.keys(targets),
}
