import { nls } from '@theia/core';
import { codicon } from '@theia/core/lib/browser';
import * as React from '@theia/core/shared/react';
import { ConfigIssue } from '../../common/config-protocol';
import { displayPath, displayPathsIn, PathRoot } from './display-path';
import { FocusRequest, focusRef } from './providers-section';

/** Where a problem is, as the view shows it: the file relative to the workspace or under `~`, the line, the field. */
export function issueLocation(issue: ConfigIssue, roots: readonly PathRoot[]): string {
    return `${displayPath(issue.file, roots)}${issue.line !== undefined ? `:${issue.line}` : ''}${issue.field ? ` [${issue.field}]` : ''}`;
}

/** What is wrong and what to do, with the paths it names shown the same way. */
export function issueText(issue: ConfigIssue, roots: readonly PathRoot[]): string {
    return displayPathsIn(`${issue.message}${issue.fix ? ` — ${issue.fix}` : ''}`, roots);
}

/** The problems found while loading the configuration, each with its file and line and a button that opens it there. */
export function ProblemsSection({ issues, roots, focus, openFile }: {
    issues: readonly ConfigIssue[]; roots: readonly PathRoot[]; focus: FocusRequest | undefined; openFile(file: string, line?: number): void;
}): React.ReactElement {
    return <section className='qa-config-section' data-section='issues' aria-labelledby='qa-config-problems'>
        <h2 id='qa-config-problems' tabIndex={-1} ref={focusRef(focus, { section: 'issues' })}>{nls.localize('qodeassist/config/problems', 'Problems')}</h2>
        {issues.length === 0
            ? <div className='qa-config-ok'><i className={codicon('check')} aria-hidden='true' /> {nls.localize('qodeassist/config/noProblems', 'The configuration loads without problems.')}</div>
            : <ul className='qa-config-issues'>{issues.map((issue, index) => {
                const where = issueLocation(issue, roots);
                return <li key={index} className='qa-config-issue' data-severity={issue.severity}>
                    <i className={codicon(issue.severity === 'error' ? 'error' : 'info')} role='img' aria-label={issue.severity} />
                    <span className='qa-config-where' title={issue.file}>{where}</span>
                    <span className='qa-config-message'>{issueText(issue, roots)}</span>
                    <button type='button' className='theia-button secondary' data-action='open-issue'
                        aria-label={nls.localize('qodeassist/config/openFileAt', 'Open file {0}', where)} title={nls.localize('qodeassist/config/openFileAt', 'Open file {0}', where)}
                        onClick={() => openFile(issue.file, issue.line)}>{nls.localize('qodeassist/config/openFile', 'Open file')}</button>
                </li>;
            })}</ul>}
    </section>;
}
