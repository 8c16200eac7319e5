// Lint for src/ and test/: ESLint's and typescript-eslint's recommended rules, unicorn's (the
// anchors' house style), and imports in one order. Rules switched off say why.
import js from '@eslint/js'
import perfectionist from 'eslint-plugin-perfectionist'
import unicorn from 'eslint-plugin-unicorn'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // Stryker's sandbox copies of the project and its reports (npm run mutate) are not sources.
  {ignores: ['dist/', 'node_modules/', 'test/fixtures/', '.stryker-tmp/', 'reports/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  unicorn.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js'],
    plugins: {perfectionist},
    rules: {
      // Packages first, then the project's own modules; type imports sort with the others.
      'perfectionist/sort-imports': [
        'error',
        {
          type: 'natural',
          groups: [
            ['value-builtin', 'value-external', 'type-builtin', 'type-external'],
            ['value-internal', 'type-internal', 'value-parent', 'type-parent', 'value-sibling', 'type-sibling', 'value-index', 'type-index'],
          ],
        },
      ],
      'perfectionist/sort-named-imports': ['error', {type: 'natural', ignoreCase: true}],
      '@typescript-eslint/consistent-type-imports': ['error', {fixStyle: 'inline-type-imports'}],
      // Domain words (args, env, dir, ipvs) read better than their expansions.
      'unicorn/prevent-abbreviations': 'off',
      // The report's JSON says "not known" with null, a value every consumer can test for.
      'unicorn/no-null': 'off',
      // Named imports from node: modules, as Node's own documentation writes them.
      'unicorn/import-style': 'off',
      // `(await import('./x.js')).name` loads a module lazily in one readable expression.
      'unicorn/no-await-expression-member': 'off',
      // An if/else chain of three reads as well as a switch, and its autofix breaks the layout.
      'unicorn/prefer-switch': 'off',
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_'}],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // A helper written beside the one test that uses it reads best there.
      'unicorn/consistent-function-scoping': 'off',
      // Benchmarks are scripts run on their own: they may end the process.
      'unicorn/no-process-exit': 'off',
    },
  },
)
