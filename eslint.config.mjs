import js from "@eslint/js"
import reactHooks from "eslint-plugin-react-hooks"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: [".next/**", ".next-*/**", "node_modules/**", ".data/**", "next-env.d.ts", "test-results/**", "playwright-report/**", "lib/db/migrations/**", ".stryker-tmp/**", "reports/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-globals": ["error", { name: "parseFloat", message: "Money stays a decimal string or a Decimal (lib/money.ts)." }],
      "no-restricted-properties": ["error", { object: "Number", property: "parseFloat", message: "Money stays a decimal string or a Decimal (lib/money.ts)." }],
    },
  },
  {
    // One direction: components use lib, never the other way round.
    files: ["lib/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(@/|(\\.\\./)+)components/", message: "lib/ does not import components/: move what both need into lib/." }] },
      ],
    },
  },
  {
    // Pages and route handlers reach the database through lib/ (withStaff hands handlers the runtime's); only the health check opens it itself.
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/api/health/**", "**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "@/lib/console/database", message: "app/ reaches the database through lib/console (or the runtime withStaff hands the handler)." },
            { name: "@/lib/db/client", importNames: ["getDatabase"], message: "app/ reaches the database through lib/console (or the runtime withStaff hands the handler)." },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.name=/^(database|getDatabase)$/]", message: "app/ does not open the database: ask lib/console (only app/api/health does)." },
      ],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: "readonly", console: "readonly", URL: "readonly" },
    },
  },
)
