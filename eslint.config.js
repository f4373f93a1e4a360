// ESLint with typescript-eslint's type-aware rules over the sources, tests,
// examples, benchmarks and scripts. Formatting is Prettier's (see
// .prettierrc.json); `npm run lint` runs both checks, and `npm test` runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'test-artifacts/',
      'bench/results/',
      'bench/.data/',
      'bench/drf/',
      '.tmp/',
      // The starter `eventide init` writes: its imports of eventide resolve only in the project it becomes,
      // where test/cli/init.test.ts type-checks it (strict) and runs its tests.
      'templates/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Parameters named with a leading _ are part of a signature and unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // node:test's test() and describe() return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', URL: 'readonly' },
    },
  },
);
