import { config } from "zod"

// Pages run under a CSP without 'unsafe-eval'. zod compiles object parsers with
// `new Function` unless told not to, and probes for that with `new Function("")` when the
// first object schema is built: the probe is caught, but the browser still reports a CSP
// violation. Imported for its side effect before any schema is built (instrumentation-client.ts
// in the browser, instrumentation.ts on the server), so the probe never runs.
config({ jitless: true })
