import { extname } from 'node:path';

const LANGUAGES: Record<string, string> = {
    '.ts': 'typescript', '.tsx': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript',
    '.cjs': 'javascript', '.py': 'python', '.cpp': 'cpp', '.cc': 'cpp', '.cxx': 'cpp', '.h': 'cpp', '.hpp': 'cpp', '.c': 'c', '.rs': 'rust', '.go': 'go',
    '.java': 'java', '.kt': 'kotlin', '.kts': 'kotlin', '.cs': 'csharp', '.rb': 'ruby', '.php': 'php', '.swift': 'swift', '.scala': 'scala',
    '.lua': 'lua', '.sh': 'shellscript', '.bash': 'shellscript', '.sql': 'sql', '.html': 'html', '.css': 'css', '.scss': 'scss', '.json': 'json',
    '.yaml': 'yaml', '.yml': 'yaml', '.toml': 'toml', '.xml': 'xml', '.qml': 'qml', '.md': 'markdown', '.vue': 'vue', '.dart': 'dart', '.zig': 'zig'
};

/** The language of a file by its extension, as editors name it; `plaintext` when unknown. */
export function languageOfPath(path: string): string {
    return LANGUAGES[extname(path).toLowerCase()] ?? 'plaintext';
}
