/**
 * The environment a process started by a tool gets: an allow-list of what programs and
 * toolchains need, never a key. The backend's own environment holds provider keys
 * (`*_API_KEY`), the MCP server token and whatever else the user exported.
 */

export interface ChildEnvironmentOptions {
    /** Values that must never reach a child (keys from the SecretsStore, the MCP token), whatever variable holds them. */
    secrets?: readonly string[];
    /** More variable names to pass (a caller's own needs); the secret checks still apply. */
    allow?: readonly string[];
    platform?: NodeJS.Platform;
}

const POSIX_NAMES = [
    'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'COLORTERM', 'TMPDIR', 'TEMP', 'TMP', 'TZ',
    'JAVA_HOME', 'GOPATH', 'GOROOT', 'GOCACHE', 'GOMODCACHE', 'GOFLAGS', 'CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'NVM_DIR', 'NVM_BIN',
    'VIRTUAL_ENV', 'CONDA_PREFIX', 'CONDA_DEFAULT_ENV', 'PYTHONPATH', 'PYTHONHOME', 'NODE_PATH',
    'CC', 'CXX', 'CPP', 'LD', 'AR', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS', 'LDLIBS', 'MAKEFLAGS',
    'PKG_CONFIG_PATH', 'CMAKE_PREFIX_PATH', 'CMAKE_GENERATOR', 'LD_LIBRARY_PATH', 'DYLD_LIBRARY_PATH',
    'DOTNET_ROOT', 'ANDROID_HOME', 'ANDROID_SDK_ROOT', 'GRADLE_USER_HOME', 'MAVEN_HOME', 'M2_HOME',
    'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'
];

const WINDOWS_NAMES = [
    'SYSTEMROOT', 'SYSTEMDRIVE', 'COMSPEC', 'PATHEXT', 'WINDIR', 'USERPROFILE', 'USERNAME', 'HOMEDRIVE', 'HOMEPATH', 'APPDATA', 'LOCALAPPDATA',
    'PROGRAMFILES', 'PROGRAMFILES(X86)', 'PROGRAMW6432', 'PROGRAMDATA', 'COMMONPROGRAMFILES', 'COMMONPROGRAMFILES(X86)', 'COMMONPROGRAMW6432',
    'NUMBER_OF_PROCESSORS', 'PROCESSOR_ARCHITECTURE', 'OS'
];

/** Whole families of harmless names: locale categories and the XDG base directories. */
const ALLOWED_NAME_PATTERNS = [/^LC_[A-Z]+$/, /^XDG_[A-Z]+_(HOME|DIRS)$/];

/** Names that carry credentials by convention; they never pass, even when allowed by name. */
const SECRET_NAME = /(^|_)(API_?KEY|KEY|KEYS|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|AUTH|COOKIE)(_|$)|APIKEY|KEY_FILE$|TOKEN_FILE$/i;

/** Values shaped like a credential whatever the variable is called. */
const SECRET_VALUES = [
    /\b(sk-(ant-)?|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abprs]-|AKIA|AIza)[A-Za-z0-9_-]{8,}/,
    /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i, // a URL with user:password
    /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
    /\bbearer\s+\S{8,}/i
];

/** A long single token mixing letters and digits, with no path or list separator: a random key, not a setting. */
function looksRandom(value: string): boolean {
    return /^[A-Za-z0-9+=_-]{32,}$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

export function looksLikeSecret(value: string): boolean {
    return looksRandom(value) || SECRET_VALUES.some(pattern => pattern.test(value));
}

/** Pure: the variables of `source` a tool's child process may see. */
export function childEnvironment(source: Readonly<Record<string, string | undefined>>, options: ChildEnvironmentOptions = {}): Record<string, string> {
    const windows = (options.platform ?? process.platform) === 'win32';
    // Windows variable names are case-insensitive (`Path`, `SystemRoot`); POSIX names are not.
    const key = (name: string) => windows ? name.toUpperCase() : name;
    const allowed = new Set([...POSIX_NAMES, ...(windows ? WINDOWS_NAMES : []), ...(options.allow ?? [])].map(key));
    // A short "secret" would match ordinary text; below 8 characters only an exact value is dropped.
    const secrets = (options.secrets ?? []).filter(secret => secret.length >= 4);
    const holdsSecret = (value: string) => secrets.some(secret => value === secret || (secret.length >= 8 && value.includes(secret)));
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(source)) {
        if (value === undefined || !(allowed.has(key(name)) || ALLOWED_NAME_PATTERNS.some(pattern => pattern.test(key(name))))) {
            continue;
        }
        if (SECRET_NAME.test(name) || looksLikeSecret(value) || holdsSecret(value)) {
            continue;
        }
        result[name] = value;
    }
    return result;
}

/** The value of a variable, matching the name case-insensitively on Windows. */
export function environmentValue(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform = process.platform): string | undefined {
    if (platform !== 'win32') {
        return env[name];
    }
    const found = Object.keys(env).find(candidate => candidate.toUpperCase() === name.toUpperCase());
    return found === undefined ? undefined : env[found];
}

/**
 * Git settings every command gets, at command-line scope so no repository or global config beats
 * them: a folder of plain files can be a bare repository whose `core.fsmonitor` (or hooks) git
 * would run on `git status`. Hooks point at /dev/null, a path that can never hold one.
 */
export const GIT_SAFETY: ReadonlyArray<[string, string]> = [
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['safe.bareRepository', 'explicit'],
    ['protocol.ext.allow', 'never']
];

/** Variables that carry command-line git config: anything a caller put there is replaced by GIT_SAFETY. */
const GIT_CONFIG_VARIABLE = /^GIT_CONFIG_(COUNT|PARAMETERS|KEY_\d+|VALUE_\d+)$/i;

/** `env` with GIT_SAFETY as the only command-line git config (GIT_CONFIG_COUNT/KEY_n/VALUE_n). */
export function withGitSafety(env: Readonly<Record<string, string>>): Record<string, string> {
    const result = Object.fromEntries(Object.entries(env).filter(([name]) => !GIT_CONFIG_VARIABLE.test(name)));
    result.GIT_CONFIG_COUNT = String(GIT_SAFETY.length);
    GIT_SAFETY.forEach(([key, value], index) => {
        result[`GIT_CONFIG_KEY_${index}`] = key;
        result[`GIT_CONFIG_VALUE_${index}`] = value;
    });
    return result;
}
