import { RequestError } from '@agentclientprotocol/sdk';
import { ErrorInfo, toErrorInfo } from '../wire/error-info';
import { redactSecrets } from '../wire/redaction';

/** JSON-RPC "invalid params": what the client sent cannot be used as it is. */
const INVALID_PARAMS = -32602;
/** ACP "authentication required": the provider refused the key (or there is none). */
const AUTH_REQUIRED = -32000;
const INTERNAL_ERROR = -32603;

/**
 * A failure as the JSON-RPC error the client gets: Validation is the client's input (invalid
 * params), Auth is a missing or refused key, the rest is QodeAssist's or the provider's side.
 * The message says the cause and the fix; `data` carries the category for clients that branch
 * on it. Keys never leave: the message and detail are redacted.
 */
export function requestErrorOf(error: unknown): RequestError {
    if (error instanceof RequestError) {
        return error;
    }
    return requestErrorFromInfo(toErrorInfo(error));
}

export function requestErrorFromInfo(info: ErrorInfo): RequestError {
    const code = info.category === 'Validation' ? INVALID_PARAMS : info.category === 'Auth' ? AUTH_REQUIRED : INTERNAL_ERROR;
    return new RequestError(code, redactSecrets(info.message), {
        category: info.category,
        ...info.providerDetail !== undefined ? { providerDetail: redactSecrets(info.providerDetail) } : {},
        ...info.status !== undefined ? { status: info.status } : {}
    });
}
