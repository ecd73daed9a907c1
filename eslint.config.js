import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['**/test/**', '**/scripts/**', '**/bench/**', '**/*.config.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['docker/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { fetch: 'readonly', AbortSignal: 'readonly' } },
  },
  {
    files: ['services/*/src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['express', 'meross-cloud', 'pushover-notifications', 'js-yaml', '*/adapters/*', '*/http/*'] },
      ],
    },
  },
);
