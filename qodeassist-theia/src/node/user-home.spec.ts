import * as assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { defaultUserHome } from './chat-service-impl';

describe('the backend\'s QodeAssist home', () => {
    const saved = process.env.QODEASSIST_STATE_DIR;
    afterEach(() => {
        if (saved === undefined) {
            delete process.env.QODEASSIST_STATE_DIR;
        } else {
            process.env.QODEASSIST_STATE_DIR = saved;
        }
    });

    it('is the state dir when one is set (a pod\'s persistent volume), so chats, consents and the user layer outlive a restart; else the home', () => {
        process.env.QODEASSIST_STATE_DIR = '/home/project/.qodeassist-user';
        assert.equal(defaultUserHome(), '/home/project/.qodeassist-user');
        delete process.env.QODEASSIST_STATE_DIR;
        assert.equal(defaultUserHome(), homedir());
    });
});
