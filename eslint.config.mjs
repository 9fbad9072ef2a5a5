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
