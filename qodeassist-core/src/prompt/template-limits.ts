import { TemplateSandboxError } from './template-policy';

/**
 * Bounds on one render of an agent template. Each sits far above what a real request needs
 * (a bundled chat body over 200 messages of 20 KB each takes about 25,000 steps, 900 loop
 * iterations and 4.5 MB of text),
 * and each refusal names its limit, so a hostile or runaway template stops instead of hanging
 * the request path or exhausting memory.
 */
export const TEMPLATE_LIMITS = {
    /** Nodes evaluated in one render, includes and macro calls included. */
    MAX_RENDER_STEPS: 5_000_000,
    /** Loop iterations in one render, summed over every `for`. */
    MAX_LOOP_ITERATIONS: 1_000_000,
    /** Characters of the rendered text, and of any string built on the way (checked before it is built). */
    MAX_TEXT_LENGTH: 64 * 1024 * 1024,
    /** Items of any list built on the way (range, concat, batch, …), checked before it is built. */
    MAX_LIST_LENGTH: 2_000_000,
    /** Includes, macro calls and call blocks nested inside each other. */
    MAX_NESTING_DEPTH: 100,
    /** Wall-clock time of one render, read at least every 4,096 steps and before every string operation. */
    MAX_RENDER_MILLISECONDS: 5_000,
    /**
     * Characters the string operations of one render read and write, summed: a step that replaces or
     * escapes a long text costs as much as its length, so doing so in a loop ends here, not after minutes.
     */
    MAX_TEXT_WORK: 256 * 1024 * 1024,
    /** Nesting of the parsed template itself (brackets, blocks), checked at load. */
    MAX_SYNTAX_DEPTH: 200
} as const;

export type TemplateLimits = { -readonly [K in keyof typeof TEMPLATE_LIMITS]: number };

const FIXES: Record<keyof TemplateLimits, string> = {
    MAX_RENDER_STEPS: 'the template does too much work for one request; loop over less data or simplify it',
    MAX_LOOP_ITERATIONS: 'loop over fewer items (no range() over millions, no nested loops over large lists)',
    MAX_TEXT_LENGTH: 'build smaller text: do not repeat, pad or double strings to huge sizes',
    MAX_LIST_LENGTH: 'build smaller lists: range(), batch, concat and push stay far below this size',
    MAX_NESTING_DEPTH: 'stop the recursion: a macro or include that calls itself needs a condition that ends it',
    MAX_RENDER_MILLISECONDS: 'the template takes too long to render; loop over less data or simplify it',
    MAX_TEXT_WORK: 'the template processes too much text for one request: do not transform long strings over and over in a loop',
    MAX_SYNTAX_DEPTH: 'nest brackets, tags and expressions less deeply'
};

/** A render refused for exceeding `limit`: the message names the limit, its value and the fix. */
export function limitExceeded(limit: keyof TemplateLimits, limits: TemplateLimits, what: string): TemplateSandboxError {
    return new TemplateSandboxError(`the template exceeded ${limit} (${limits[limit]}): ${what}`, FIXES[limit]);
}

/** The counters of one render; every check runs before the work it guards. */
export class RenderBudget {
    private steps = 0;
    private worked = 0;
    private iterations = 0;
    private depth = 0;
    private readonly deadline: number;

    constructor(readonly limits: TemplateLimits) {
        this.deadline = Date.now() + limits.MAX_RENDER_MILLISECONDS;
    }

    step(): void {
        if (++this.steps > this.limits.MAX_RENDER_STEPS) {
            throw limitExceeded('MAX_RENDER_STEPS', this.limits, `more than ${this.limits.MAX_RENDER_STEPS} steps`);
        }
        // The clock is read every 4096 steps: cheap enough for every keystroke's render.
        if ((this.steps & 0xfff) === 0 && Date.now() > this.deadline) {
            throw limitExceeded('MAX_RENDER_MILLISECONDS', this.limits, `rendering took longer than ${this.limits.MAX_RENDER_MILLISECONDS} ms`);
        }
    }

    /** Charges a string operation that reads or writes `characters`, and reads the clock. */
    work(characters: number): void {
        this.worked += characters;
        if (this.worked > this.limits.MAX_TEXT_WORK) {
            throw limitExceeded('MAX_TEXT_WORK', this.limits, `string operations went over ${this.limits.MAX_TEXT_WORK} characters`);
        }
        if (Date.now() > this.deadline) {
            throw limitExceeded('MAX_RENDER_MILLISECONDS', this.limits, `rendering took longer than ${this.limits.MAX_RENDER_MILLISECONDS} ms`);
        }
    }

    iteration(): void {
        if (++this.iterations > this.limits.MAX_LOOP_ITERATIONS) {
            throw limitExceeded('MAX_LOOP_ITERATIONS', this.limits, `more than ${this.limits.MAX_LOOP_ITERATIONS} loop iterations`);
        }
    }

    /** Runs `work` one level deeper (include, macro call, call block). */
    nested<T>(what: string, work: () => T): T {
        if (this.depth >= this.limits.MAX_NESTING_DEPTH) {
            throw limitExceeded('MAX_NESTING_DEPTH', this.limits, `${what} nested more than ${this.limits.MAX_NESTING_DEPTH} deep`);
        }
        this.depth++;
        try {
            return work();
        } finally {
            this.depth--;
        }
    }

    text(length: number, what = 'a string'): void {
        if (!(length <= this.limits.MAX_TEXT_LENGTH)) {
            throw limitExceeded('MAX_TEXT_LENGTH', this.limits, `${what} would be ${Number.isFinite(length) ? length : 'unbounded'} characters long`);
        }
    }

    list(length: number, what = 'a list'): void {
        if (!(length <= this.limits.MAX_LIST_LENGTH)) {
            throw limitExceeded('MAX_LIST_LENGTH', this.limits, `${what} would have ${Number.isFinite(length) ? length : 'unbounded'} items`);
        }
    }
}
