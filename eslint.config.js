import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'actions/*/dist/', '.data/', 'coverage/', 'db/migrations/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    // Core decides, the engine applies (STYLE.md 17; issue 25): no task, run, attempt, PR or
    // check state or conclusion is compared outside src/core/, where each rule has one home.
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['left', 'right'].map((side) => ({
          selector: `BinaryExpression[operator=/^[!=]==?$/][${side}.type='MemberExpression'][${side}.property.name=/^(state|conclusion|status|phase|mergeableState)$/]`,
          message:
            'Compare states and conclusions in src/core/ (a named rule or a decide… function), not in the engine.',
        })),
        {
          selector: "CallExpression[callee.property.name='has'][callee.object.name=/_STATES$/]",
          message: "Ask core's rule about a state instead of reading its table in the engine.",
        },
      ],
    },
  },
  {
    // Test payloads are GitHub's own JSON, shaped on the fly.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
