import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of both services (docs/architecture.md): http -> domain <- adapters, wired by the files at src/.
// test/lint-boundaries.test.ts proves each restriction fails on a bad import.
// File and network I/O, with or without the node: prefix.
const IO_MODULES = '^(node:)?(fs|http|https|http2|net|tls|dgram|dns|child_process)(/.*)?$';
const DOMAIN_MESSAGE = {
  vendor:
    'The domain imports no vendor package (zod included: schemas live in http/); declare what it needs as an interface here and implement it in adapters/.',
  io: 'The domain does no file or network I/O; declare an interface here and implement it in adapters/.',
  common: "The domain reaches common through '@homeops/common/core', which loads no Express, helmet, swagger-ui or pino.",
  outside: 'The domain imports only domain files and @homeops/common/core: config values come in as parameters, vendor knowledge lives in adapters/.',
};

/**
 * The domain's import rule for files `depth` folders below their domain folder (1: src/domain/x.ts). A device family's
 * domain (src/families/<family>/domain) may also reach the service's domain and other families' domains, nothing else.
 */
function domainImports(depth, family = false) {
  const leaves = family ? `^(\\.\\./){${depth}}(?!\\.\\./\\.\\./domain/|\\.\\./[^/]+/domain/)` : `^(\\.\\./){${depth}}(?!families/[^/]+/domain/)`;
  return [
    'error',
    {
      paths: [
        { name: '@homeops/common', message: DOMAIN_MESSAGE.common },
        { name: '@homeops/common/core', importNames: ['z'], message: DOMAIN_MESSAGE.vendor },
      ],
      patterns: [
        { regex: IO_MODULES, message: DOMAIN_MESSAGE.io },
        { regex: `^(?!\\.{1,2}/|node:|@homeops/common(/core)?$|${IO_MODULES.slice(1, -1)}$)`, message: DOMAIN_MESSAGE.vendor },
        { regex: leaves, message: DOMAIN_MESSAGE.outside },
      ],
    },
  ];
}

function layerBoundaries() {
  const src = 'services/*/src';
  // A device family's folder keeps the layers: src/families/<family>/{domain,http,adapters}, the same rules apply.
  const family = `${src}/families/*`;
  const domain = [1, 2, 3, 4].flatMap((depth) => [
    { files: [`${src}/domain/${'*/'.repeat(depth - 1)}*.{ts,tsx}`], rules: { 'no-restricted-imports': domainImports(depth) } },
    { files: [`${family}/domain/${'*/'.repeat(depth - 1)}*.{ts,tsx}`], rules: { 'no-restricted-imports': domainImports(depth, true) } },
  ]);
  return [
    ...domain,
    {
      files: [`${src}/http/**/*.{ts,tsx}`, `${family}/http/**/*.{ts,tsx}`],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ regex: '^(\\.\\.?/)+(.*/)?adapters(/|$)', message: 'http/ reaches adapters only through the domain and the app that wires them.' }] },
        ],
      },
    },
    {
      files: [`${src}/adapters/**/*.{ts,tsx}`, `${family}/adapters/**/*.{ts,tsx}`],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ regex: '^(\\.\\.?/)+(.*/)?http(/|$)', message: 'adapters/ never import http/: what both need belongs to the domain.' }] },
        ],
      },
    },
  ];
}

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
  ...layerBoundaries(),
  {
    // Type-aware rules on the shipped code: each file is checked with the tsconfig.json nearest to it.
    files: ['services/*/src/**/*.{ts,tsx}', 'packages/*/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
);
