// The type-aware linter `npm test` runs (`npm run lint`): ESLint's recommended rules and
// typescript-eslint's recommended type-checked ones over every TypeScript file, tests included.
// A promise left floating in the proxy loses an exchange, so the two promise rules are named
// here even where a preset already turns them on.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'reports/latest/', 'reports/[0-9][0-9][0-9][0-9]-*/', 'test-results/', '.tmp/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off: an async function without an await is how the kit meets an interface that asks for a
      // promise (a Playwright reporter's onEnd, a transport's transmit and close, a lazy command
      // loader); wrapping each return in Promise.resolve says the same thing less plainly.
      '@typescript-eslint/require-await': 'off',
      // Off: the kit matches control characters on purpose, to escape or drop them from what it
      // writes (JUnit XML, log lines, summaries, header values), which is all this rule finds.
      'no-control-regex': 'off',
      // Tuned, not off: a name the code leaves unused on purpose (a member a destructuring drops
      // from a rest, a parameter a signature must take) starts with an underscore.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['**/*.test.ts'],
    rules: {
      // Off in tests: vitest types its asymmetric matchers (expect.stringMatching, expect.any,
      // expect.objectContaining) as any, and an expected object holding one is how they are used.
      // Everything else a test reads (JSON.parse, a parsed YAML file) is typed where it is read.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // The few JavaScript files (the bin launcher, the proxy's worker entry, this file and the
    // dependency-cruiser configuration) are outside the TypeScript project: plain rules only.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { __dirname: 'readonly' } },
    // Off for CommonJS files: dependency-cruiser loads its configuration with require, and such a
    // file imports the same way.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
