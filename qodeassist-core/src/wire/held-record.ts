import { PendingBytes } from './pending-bytes';
import { LimitAdvice, recordLimitError } from './request-limits';

/**
 * The bytes of the record still arriving (an SSE event, an NDJSON line) held against the record
 * limit: the SSE and NDJSON readers end the stream with the limit's error as soon as the held
 * record is over it, before any of it is decoded. Only how a record ends differs between them.
 */
export class HeldRecord extends PendingBytes {
    constructor(private readonly maxRecordBytes: number, private readonly advice: LimitAdvice) {
        super();
    }

    /** Holds a chunk in which the record does not end; over the limit, the stream ends here. */
    hold(chunk: Uint8Array): void {
        this.push(chunk);
        if (this.length > this.maxRecordBytes) {
            throw recordLimitError(this.maxRecordBytes, this.advice);
        }
    }

    /**
     * The held record ends in this chunk, before `lastEnd`: if it is too long already it is never
     * decoded. `firstEnd` (where it ends exactly) is looked for only when `lastEnd` is over the limit.
     */
    checkEnd(lastEnd: number, firstEnd: () => number): void {
        if (this.length > 0 && this.length + lastEnd > this.maxRecordBytes && this.length + firstEnd() > this.maxRecordBytes) {
            throw recordLimitError(this.maxRecordBytes, this.advice);
        }
    }
}
