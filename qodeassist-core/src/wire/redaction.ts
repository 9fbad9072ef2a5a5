/**
 * Removes secrets from text before it reaches a log, an error message or the UI.
 * Known secret values are replaced wherever they appear; bearer tokens and common
 * key shapes are masked even when the value is not known.
 */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
    let result = text;
    for (const secret of knownSecrets) {
        if (secret.length >= 4) {
            result = result.split(secret).join('[REDACTED]');
        }
    }
    return result
        .replace(/(authorization\s*[:=]\s*"?\s*bearer\s+)[^\s",}]+/gi, '$1[REDACTED]')
        .replace(/((?:x-api-key|x-goog-api-key|api[_-]?key)\s*"?\s*[:=]\s*"?)[^\s",}]+/gi, '$1[REDACTED]')
        .replace(/\b(sk-(?:ant-)?[A-Za-z0-9_-]{8})[A-Za-z0-9_-]+/g, '$1…[REDACTED]');
}
