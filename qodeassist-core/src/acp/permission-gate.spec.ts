import * as assert from 'node:assert/strict';
import { PermissionGate } from './permission-gate';

describe('PermissionGate', () => {
    const later = <T>(value: T, ms: number) => new Promise<T>(resolve => setTimeout(() => resolve(value), ms));

    it('lets an operation through at once when no prompt is open', async () => {
        assert.equal(await new PermissionGate().cleared(), undefined);
    });

    it('holds an operation until the open prompt is answered, then lets it through when allowed', async () => {
        const gate = new PermissionGate();
        let answered = false;
        gate.opened('Edit a.ts', later(true, 50).then(value => { answered = true; return value; }));
        assert.equal(await gate.cleared(), undefined);
        assert.equal(answered, true, 'it waited for the answer');
    });

    it('refuses with the title of a rejected prompt, including one opened while it waited', async () => {
        const gate = new PermissionGate();
        gate.opened('Edit a.ts', later(true, 30));
        setTimeout(() => gate.opened('Run rm -rf', later(false, 30)), 10);
        assert.equal(await gate.cleared(), 'Run rm -rf');
    });

    it('counts a prompt that failed as rejected', async () => {
        const gate = new PermissionGate();
        gate.opened('Edit a.ts', Promise.reject(new Error('prompt closed')));
        assert.equal(await gate.cleared(), 'Edit a.ts');
    });
});
