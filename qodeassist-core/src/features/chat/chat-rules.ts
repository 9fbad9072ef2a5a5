import { isAbsolute, relative } from 'node:path';
import { HistoryMessage } from '../../context/conversation-history';
import { findRulesFiles, rulesLayers, RulesSettings, SkippedRulesFile } from './rules-files';
import { Session } from '../../session/session';
import { WorkspaceFiles } from '../../tools/workspace-files';

/** The files a turn is about: the file in focus, the linked files, and every path the chat's tool calls named. */
export function relevantFiles(workspace: string, file: string | undefined, linked: readonly string[], history: readonly HistoryMessage[]): string[] {
    const paths = [file, ...linked];
    for (const message of history) {
        for (const block of message.blocks) {
            if (block.type === 'tool_use' && typeof block.input.path === 'string') {
                paths.push(block.input.path);
            }
        }
    }
    return paths.filter((path): path is string => !!path).map(path => isAbsolute(path) ? relative(workspace, path) : path);
}

/**
 * Puts the project's rules files into the session as layers (read again at every send, so an
 * edit applies at the next one), replacing those of the last send. An untrusted workspace gets
 * none: `workspace` is then undefined.
 */
export function applyRulesFiles(session: Session, previous: Set<string>, workspace: string | undefined, relevant: readonly string[],
    settings: RulesSettings | undefined, useGitignore: boolean): SkippedRulesFile[] {
    previous.forEach(name => session.removeLayer(name));
    previous.clear();
    if (!workspace) {
        return [];
    }
    const found = findRulesFiles(new WorkspaceFiles([workspace], { useGitignore }), relevant, settings);
    for (const layer of rulesLayers(found.used)) {
        session.setLayer(layer.name, layer.text);
        previous.add(layer.name);
    }
    return found.skipped;
}
