import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { Configuration, ConfigurationService } from '@qodeassist/core';
import { ConfigFixture } from './config-fixture';

function nextChange(service: ConfigurationService, timeoutMs = 5_000): Promise<Configuration> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no change event')), timeoutMs);
        const stop = service.onDidChange(configuration => {
            clearTimeout(timer);
            stop();
            resolve(configuration);
        });
    });
}

describe('ConfigurationService', () => {
    let fixture: ConfigFixture;
    let service: ConfigurationService;
    beforeEach(() => { fixture = new ConfigFixture(); });
    afterEach(() => {
        service?.dispose();
        fixture.dispose();
    });

    it('reloads when a user file is added, and again when it breaks and is fixed', async () => {
        fixture.user_('agents/.keep', '');
        service = new ConfigurationService(fixture.roots, { debounceMs: 50 }).start();
        assert.equal(service.current.agents.has('mine'), false);

        let changed = nextChange(service);
        const path = fixture.user_('agents/mine.toml', 'schema_version = 1\nname = "mine"\nextends = "claude-chat"\n');
        assert.equal((await changed).agents.has('mine'), true);

        changed = nextChange(service);
        fixture.write(path, 'schema_version = 1\nname = "mine"\nextends = "claude-chat"\nmodle = "x"\n');
        const broken = await changed;
        assert.equal(broken.agents.has('mine'), false);
        assert.deepEqual(broken.issues.map(issue => [issue.line, issue.message]), [[4, 'unknown key "modle"']]);

        changed = nextChange(service);
        fixture.write(path, 'schema_version = 1\nname = "mine"\nextends = "claude-chat"\nmodel = "x"\n');
        const fixed = await changed;
        assert.deepEqual(fixed.issues, []);
        assert.equal(fixed.agents.get('mine')?.model, 'x');
    });

    it('starts watching a project folder once it is created', async () => {
        service = new ConfigurationService(fixture.roots, { debounceMs: 50 });
        mkdirSync(fixture.workspace, { recursive: true });
        service.start();
        const changed = nextChange(service);
        fixture.project_('agents/later.toml', 'schema_version = 1\nname = "later"\nextends = "ollama-chat"\n');
        const configuration = await changed;
        // The folder may appear before the file is written; wait for the load that has it.
        const final = configuration.agents.has('later') ? configuration : await nextChange(service);
        assert.equal(final.agents.has('later'), true);
    });

    it('does not reload for a chat saved or exported under .qodeassist, and still does for a configuration file after', async () => {
        fixture.user_('agents/.keep', '');
        service = new ConfigurationService(fixture.roots, { debounceMs: 50 }).start();
        let reloads = 0;
        service.onDidChange(() => reloads++);
        fixture.user_('chats/0b7e.json', '{"version":1}\n');
        fixture.user_('exports/chat.md', '# chat\n');
        fixture.user_('chats/attachments/0b7e/a.txt', 'x\n');
        await new Promise(resolve => setTimeout(resolve, 400));
        assert.equal(reloads, 0, 'saving chats reloaded the configuration');
        const changed = nextChange(service);
        fixture.user_('agents/mine.toml', 'schema_version = 1\nname = "mine"\nextends = "claude-chat"\n');
        assert.equal((await changed).agents.has('mine'), true);
    });
});
