// @ts-check
import { createJiti } from "jiti"

// lib/env is TypeScript; jiti loads it here as Next loads the app.
const jiti = createJiti(import.meta.url)
/** @type {typeof import("./lib/env/index")} */
const { checkConfiguration } = await jiti.import("./lib/env/index.ts")

const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  {
    key: "Permissions-Policy",
    value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  },
]

// Pages get their CSP (with a per-request script nonce) from proxy.ts; everything else
// (API answers, the sandbox, static files) gets this one.
const apiCsp = "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'"

/** @type {import("next").NextConfig} */
const nextConfig = {
  // Lets parallel work trees or benchmark runs build side by side (default .next).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The image (Dockerfile) runs `<distDir>/standalone/server.js`: the server with only the
  // node_modules it needs. `npm start` (next start) still serves the same build.
  output: "standalone",
  // Read at run time from the working directory, so not found by the tracer: the migrations.
  outputFileTracingIncludes: { "/*": ["./lib/db/migrations/**/*"] },
  // Found by the tracer but never the image's: this machine's cached new PGlite database
  // (lib/db/client.ts; a copy that missed a file made every start fail).
  outputFileTracingExcludes: { "/*": ["./node_modules/.cache/**/*"] },
  // `npm test` type-checks the whole project (npm run typecheck) just before its e2e build
  // (scripts/e2e-build.mjs), which therefore skips next build's second, identical check.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pg",
    "bcryptjs",
    // pdfkit reads its fonts (AFM files) from its own folder at run time: kept out of the bundle.
    "pdfkit",
    // OpenTelemetry: the API (no-ops unless traces are on) and the SDK, which instrumentation.ts loads only then.
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  typedRoutes: false,
  experimental: {
    // What Next buffers of a body for proxy.ts (pages, and API paths holding a %): at most the
    // console API's own limit, never the default 10 MB per request.
    proxyClientMaxBodySize: "64kb",
    // Route modules load on their first request instead of all at start: a console whose
    // people use a few pages does not hold every page's and route's code (about 30 MiB less
    // after start, and a faster start; the bench's memory and start-up rows).
    preloadEntriesOnStart: false,
  },
  headers() {
    return Promise.resolve([
      { source: "/:path*", headers: securityHeaders },
      // One rule for the three areas: Next matches every rule against every request.
      { source: "/:area(api|sandbox|_next)/:path*", headers: [{ key: "Content-Security-Policy", value: apiCsp }] },
      // The files proxy.ts does not see (public/, and /favicon.ico, which is a 404 page): found or not.
      { source: "/:file(icon\\.svg|logo\\.svg|robots\\.txt|favicon\\.ico)", headers: [{ key: "Content-Security-Policy", value: apiCsp }] },
      {
        source: "/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "https" }],
        headers: [{ key: "Strict-Transport-Security", value: "max-age=63072000; includeSubDomains" }],
      },
    ])
  },
}

/**
 * Validates the configuration when the server (or a build) starts: a bad or partial
 * environment stops it here with a message naming each variable.
 * @param {string} phase
 */
export default function config(phase) {
  checkConfiguration(phase)
  return nextConfig
}
