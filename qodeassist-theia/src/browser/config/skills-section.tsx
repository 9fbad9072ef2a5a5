import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ConfigOverview } from '../../common/config-protocol';
import { displayPath, displayPathsIn, PathRoot } from './display-path';

/** The skills the chat offers as `/name`, with their scope, and the SKILL.md files that did not load. */
export function SkillsSection({ overview, roots, openFile }: {
    overview: Pick<ConfigOverview, 'skills' | 'skillIssues' | 'skillsOff'>; roots: readonly PathRoot[]; openFile(file: string): void;
}): React.ReactElement {
    return <section className='qa-config-section' data-section='skills'>
        <h2>{nls.localize('qodeassist/config/skills', 'Skills')}</h2>
        {overview.skillsOff && <div className='qa-config-scope' data-skills-off>
            {nls.localize('qodeassist/config/skillsOff', 'Skills are turned off (preference qodeassist.skills.enabled): the chat offers none.')}
        </div>}
        {!overview.skillsOff && overview.skills.length === 0 && overview.skillIssues.length === 0 && <div className='qa-config-scope'>
            {nls.localize('qodeassist/config/noSkills',
                'No skills: add SKILL.md folders to .qodeassist/skills or .claude/skills (workspace or home), or name more folders in qodeassist.skills.folders.')}
        </div>}
        <ul className='qa-config-list'>{overview.skills.map(skill => <li key={skill.path} data-skill={skill.name}>
            <span className='qa-config-name'>/{skill.name}</span> <span className='qa-config-scope'>{skill.scope}{skill.alwaysOn ? ', always on' : ''}</span>
            <span className='qa-config-body'>{skill.description}</span>
            <button type='button' className='qa-icon-button' data-action='open-skill' aria-label={nls.localize('qodeassist/config/openSkill', 'Open the SKILL.md of {0}', skill.name)}
                title={displayPath(skill.path, roots)} onClick={() => openFile(skill.path)}><i className={codicon('go-to-file')} aria-hidden='true' /></button>
        </li>)}</ul>
        {overview.skillIssues.length > 0 && <ul className='qa-config-issues'>{overview.skillIssues.map(issue => <li key={issue.path} className='qa-config-issue' data-severity='error'>
            <i className={codicon('error')} role='img' aria-label='error' /> <span className='qa-config-where' title={issue.path}>{displayPath(issue.path, roots)}</span>
            <span className='qa-config-message'>{displayPathsIn(issue.message, roots)}</span>
            <button type='button' className='theia-button secondary' data-action='open-issue'
                aria-label={nls.localize('qodeassist/config/openFileAt', 'Open file {0}', displayPath(issue.path, roots))}
                title={nls.localize('qodeassist/config/openFileAt', 'Open file {0}', displayPath(issue.path, roots))}
                onClick={() => openFile(issue.path)}>{nls.localize('qodeassist/config/openFile', 'Open file')}</button>
        </li>)}</ul>}
    </section>;}
