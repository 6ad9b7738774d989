// Lint rules that catch what the type checker does not. Type-aware: typescript-eslint reads the same tsconfig.json as
// `npm run typecheck`. Part of `npm test` (`npm run lint`), at zero findings.
//
// - no-floating-promises: a promise nobody awaits or catches — a write that fails silently.
// - no-misused-promises: a promise where a plain value or a callback's result is expected (`if (promise)`, an async
//   function handed to `setInterval` or `forEach`). React's own event props (`onClick={async …}`) are allowed: React
//   ignores a handler's result, and those handlers catch and show their errors themselves.
// - switch-exhaustiveness-check: a `switch` over a union that forgets a member — a new tender kind or order state
//   falling through unhandled.
// - react-hooks: hooks called in the same order every render, and effects that name what they read.
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'renderer/dist/',
      'dist-electron/',
      'test-results/',
      'coverage/',
      'test/fixtures/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'react-hooks': reactHooks },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
