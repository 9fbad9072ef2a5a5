import { relative, sep } from 'node:path';
import { z } from 'zod';
import { IDiagnostics } from '../ports/diagnostics';
import { AnyTool, defineTool } from './tool';

const LIMIT = 200;
const RANK = { error: 0, warning: 1, info: 2, hint: 3 } as const;

const DIAGNOSTICS_PARAMETERS = z.strictObject({
    path: z.string().optional().describe('A file relative to the workspace root; all files when absent'),
    severity: z.enum(['error', 'warning', 'all']).optional().describe('error: errors only; warning: errors and warnings (default); all: everything')
});

/** get_diagnostics: the IDE's errors and warnings for one file or the whole workspace. */
export function createDiagnosticsTool(diagnostics: IDiagnostics): AnyTool {
    return defineTool({
        name: 'get_diagnostics',
        description: 'List the errors and warnings the IDE currently shows (language servers, linters), for one file or the whole workspace.',
        permission: 'read',
        parameters: DIAGNOSTICS_PARAMETERS,
        run: async (args, context) => {
            const file = args.path ? context.files.resolve(args.path) : undefined;
            const wanted = args.severity === 'error' ? 0 : args.severity === 'all' ? 3 : 1;
            const found = (await diagnostics.get(file?.absolute))
                .filter(diagnostic => RANK[diagnostic.severity] <= wanted)
                .filter(diagnostic => context.files.roots.some(root => !relative(root, diagnostic.path).startsWith('..')))
                .sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
            if (found.length === 0) {
                return { content: `No ${args.severity === 'error' ? 'errors' : 'problems'} reported${file ? ` for ${file.relative}` : ''}.` };
            }
            const rootOf = (path: string) => context.files.roots.find(root => !relative(root, path).startsWith('..')) ?? '';
            const lines = found.slice(0, LIMIT).map(d =>
                `${relative(rootOf(d.path), d.path).split(sep).join('/')}:${d.line}:${d.column}: ${d.severity}: ${d.message}${d.source ? ` [${d.source}]` : ''}`);
            const more = found.length > LIMIT ? `\n[${found.length - LIMIT} more not shown]` : '';
            return { content: `${lines.join('\n')}${more}` };
        }
    });
}
