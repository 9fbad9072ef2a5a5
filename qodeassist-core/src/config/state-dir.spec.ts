import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { defaultConfigRoots, qodeassistHome, STATE_DIR_VARIABLE } from './config-layers';

describe('the state dir (QODEASSIST_STATE_DIR): where the user\'s QodeAssist files live when the home does not last', () => {
    it('stands for the home when set (resolved, trimmed); the home otherwise', () => {
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '/volumes/project/.qodeassist-user' }, '/home/user'), '/volumes/project/.qodeassist-user');
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '  relative/state  ' }, '/home/user'), resolve('relative/state'));
        assert.equal(qodeassistHome({ [STATE_DIR_VARIABLE]: '   ' }, '/home/user'), '/home/user');
        assert.equal(qodeassistHome({}, '/home/user'), '/home/user');
    });

    it('the user configuration layer follows it', () => {
        assert.equal(defaultConfigRoots('/work/app', qodeassistHome({ [STATE_DIR_VARIABLE]: '/volumes/state' }, '/home/user')).user, join('/volumes/state', '.qodeassist'));
        assert.equal(defaultConfigRoots('/work/app', '/home/user').project, join('/work/app', '.qodeassist'));
    });
});
