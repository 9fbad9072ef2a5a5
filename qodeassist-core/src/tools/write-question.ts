import { ToolContext } from './tool';
import { ResolvedPath, ToolInputError } from './workspace-files';

/**
 * Checks the path a write tool is about to write, resolved now, against what the user was asked
 * about: a place that became protected after the question (or without one), or a real target other
 * than the one asked about (a folder swapped for a link while the prompt was open), is refused and
 * nothing is written. Returns the real path to write.
 */
export function assertWriteAsAsked(context: Pick<ToolContext, 'files' | 'asked'>, path: ResolvedPath): string {
    const { target, protectedPath } = context.files.recheckForWrite(path);
    if (protectedPath !== undefined && protectedPath !== context.asked?.protectedPath) {
        throw new ToolInputError(`"${path.relative}" now leads to "${protectedPath}", a configuration or ignore place the user was not asked about `
            + '(it changed after the question, or was not protected when the question was decided). Nothing was written; call the tool again to be asked.');
    }
    if (context.asked?.real !== undefined && context.asked.real !== target) {
        throw new ToolInputError(`"${path.relative}" changed after the user was asked: it now leads to ${target} instead of ${context.asked.real}. `
            + 'Nothing was written; call the tool again to be asked about the new place.');
    }
    return target;
}
