export interface BuildProblem {
    file: string;
    line: number;
    column?: number;
    severity: 'error' | 'warning';
    message: string;
}

/** Problems in the common compiler formats: `file:line:col: error: msg` (gcc, clang, eslint unix) and `file(line,col): error TS…: msg` (tsc). */
export function parseBuildProblems(output: string): BuildProblem[] {
    const problems: BuildProblem[] = [];
    for (const line of output.split('\n')) {
        const gcc = /^(.+?):(\d+):(?:(\d+):)?\s*(fatal error|error|warning):\s*(.+)$/.exec(line.trim());
        const tsc = /^(.+?)\((\d+),(\d+)\):\s*(error|warning)\s*(?:TS\d+)?:?\s*(.+)$/.exec(line.trim());
        const match = gcc ?? tsc;
        if (match) {
            problems.push({
                file: match[1], line: Number(match[2]), column: match[3] ? Number(match[3]) : undefined,
                severity: match[4] === 'warning' ? 'warning' : 'error', message: match[5].trim()
            });
        }
    }
    return problems;
}

/** One problem as one line, the form the build tool lists and the working set repeats. */
export function formatBuildProblem(problem: BuildProblem): string {
    return `${problem.file}:${problem.line}${problem.column ? `:${problem.column}` : ''}: ${problem.severity}: ${problem.message}`;
}
