/** A folder that paths are shown relative to, with the name it is shown by ('' for the workspace itself). */
export interface PathRoot {
    path: string;
    label: string;
}

/** The roots longest first: a file in `~/.qodeassist` is shown under it, not under `~`. */
function longestFirst(roots: readonly PathRoot[]): PathRoot[] {
    return roots.filter(root => root.path.length > 1).sort((a, b) => b.path.length - a.path.length);
}

function under(root: PathRoot, rest: string): string {
    return root.label ? `${root.label}/${rest}` : rest;
}

/**
 * A file as the configuration view shows it: relative to the workspace (`.qodeassist/agents/x.toml`)
 * or to a named folder (`~/.qodeassist/agents/x.toml`); bundled files and paths under no root as they are.
 */
export function displayPath(file: string, roots: readonly PathRoot[]): string {
    for (const root of longestFirst(roots)) {
        if (file === root.path) {
            return root.label || '.';
        }
        const separator = file.charAt(root.path.length);
        if (file.startsWith(root.path) && (separator === '/' || separator === '\\')) {
            return under(root, file.slice(root.path.length + 1));
        }
    }
    return file;
}

/** The same inside a sentence: a message that names another file ("also defined in /home/me/…") names it the same way. */
export function displayPathsIn(text: string, roots: readonly PathRoot[]): string {
    let shown = text;
    for (const root of longestFirst(roots)) {
        for (const separator of ['/', '\\']) {
            shown = shown.split(root.path + separator).join(under(root, ''));
        }
    }
    return shown;
}
