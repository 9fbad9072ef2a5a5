import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartialError, SandboxedPartialLoader } from './partial-loader';

describe('SandboxedPartialLoader', () => {
    const base = mkdtempSync(join(tmpdir(), 'qodeassist-partials-'));
    const bundled = join(base, 'bundled');
    const user = join(base, 'user');
    before(() => {
        mkdirSync(join(bundled, 'claude'), { recursive: true });
        mkdirSync(join(user, 'mine'), { recursive: true });
        writeFileSync(join(bundled, 'claude', 'messages.njk'), 'bundled');
        writeFileSync(join(user, 'claude-extra.njk'), 'user');
        writeFileSync(join(user, 'mine', 'ok.njk'), 'ok');
        writeFileSync(join(base, 'secret.txt'), 'secret');
        symlinkSync(join(base, 'secret.txt'), join(user, 'link-out.njk'));
        symlinkSync(base, join(user, 'dir-out'));
        symlinkSync(join(user, 'link-out.njk'), join(user, 'chain.njk'));
        symlinkSync(join(user, 'mine', 'ok.njk'), join(user, 'link-in.njk'));
    });
    after(() => rmSync(base, { recursive: true, force: true }));

    const loader = () => new SandboxedPartialLoader([bundled, user, join(base, 'missing-root')]);

    it('resolves bundled first, then user', () => {
        assert.equal(loader().getSource('claude/messages.njk').src, 'bundled');
        assert.equal(loader().getSource('claude-extra.njk').src, 'user');
        assert.equal(loader().getSource('mine/ok.njk').src, 'ok');
    });

    it('follows a link that stays inside its root', () => {
        assert.equal(loader().getSource('link-in.njk').src, 'ok');
    });

    const escapes = [
        '../secret.txt', '../../secret.txt', 'claude/../../secret.txt', 'mine/../../secret.txt', './../secret.txt',
        join(base, 'secret.txt'), '/etc/passwd', '..\\secret.txt', 'mine\\..\\..\\secret.txt', 'x\0.njk', '',
        '..', 'mine/./../..', 'link-out.njk', 'chain.njk', 'dir-out/secret.txt', 'dir-out/bundled/claude/messages.njk'
    ];
    for (const name of escapes) {
        it(`refuses ${JSON.stringify(name)}`, () => {
            assert.throws(() => loader().getSource(name), (error: unknown) => error instanceof PartialError
                && /leaves the partial roots|leads outside its root/.test(error.message));
        });
    }

    it('names the roots it looked in when a partial is missing', () => {
        assert.throws(() => loader().getSource('nope.njk'), (error: unknown) => error instanceof PartialError
            && error.message === 'no partial named "nope.njk"' && error.fix.includes(bundled));
    });
});
