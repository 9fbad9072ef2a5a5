/** Raised for an include that leaves its roots, names no existing partial or names a file that is not a plain partial; carries what to do. */
export class PartialError extends Error {
    /**
     * @param missing no partial has that name (`{% include … ignore missing %}` then renders nothing)
     */
    constructor(message: string, readonly fix: string, readonly missing = false) {
        super(message);
        this.name = 'PartialError';
    }
}
