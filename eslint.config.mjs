import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['**/lib/**', '**/node_modules/**', '**/src-gen/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        files: ['**/*.ts', '**/*.tsx'],
        rules: {
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
            '@typescript-eslint/no-namespace': 'off',
            // `import x = require('x')` is how a CommonJS module that exports a function is imported without esModuleInterop.
            '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
            '@typescript-eslint/no-non-null-assertion': 'off',
            'eqeqeq': ['error', 'always'],
            'no-console': 'error',
            'prefer-const': 'error'
        }
    },
    {
        files: ['test/src/**/*.ts', '**/*.spec.ts'],
        rules: { 'no-console': 'off' }
    }
);
