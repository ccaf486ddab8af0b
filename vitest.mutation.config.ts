import base from "./vitest.config"

/**
 * The unit test configuration for a mutation run (scripts/mutation.mjs): only the test files
 * listed for the mutated file in MUTATION_TEST_FILES. Stryker's own `testFiles` option is not
 * used: with it, Stryker 9.6 switches a mutant on after the module was loaded, so a mutant in
 * a module-level value (a constant list, a schema's options) is reported as surviving when
 * a test does catch it (stryker-js#6144).
 */
const files = process.env.MUTATION_TEST_FILES?.split(",").filter(Boolean)

export default files && files.length > 0 ? { ...base, test: { ...base.test, include: files } } : base
