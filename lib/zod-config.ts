// Pages run under a CSP without 'unsafe-eval'. zod compiles object parsers with
// `new Function` unless told not to, and probes for that with `new Function("")` when the
// first object schema is built: the probe is caught, but the browser still reports a CSP
// violation. Imported for its side effect before any schema is built (instrumentation-client.ts
// in the browser, instrumentation.ts on the server), so the probe never runs.
//
// zod keeps its global configuration on `globalThis.__zod_globalConfig` and adopts an object
// already there (zod 4 `core.js`), so the setting is made without importing zod: importing
// it here would put zod's core into every page's first script (about 11 kB gzipped). The
// unit test checks that zod's own `config()` reads it, so an upgrade that moves it fails there.
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } }
holder.__zod_globalConfig ??= {}
holder.__zod_globalConfig.jitless = true

export {}
