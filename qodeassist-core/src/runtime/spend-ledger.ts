import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MANAGED_LABEL, ManagedPolicy } from '../config/managed-policy';
import { UsageCost } from '../config/pricing';
import { QodeAssistError } from '../wire/error-info';

interface DaySpend {
    day: string;
    /** Amounts per currency: prices in other currencies than the limit's are kept apart, never converted. */
    amounts: Record<string, number>;
}

/** Today in the backend's local time, as the day a spend limit counts. */
function today(now: Date): string {
    return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

const ledgers = new Map<string, SpendLedger>();

/**
 * What one user spent today on requests with a price (`[pricing]` in the provider or agent file),
 * kept in the user's QodeAssist folder so a restart does not reset it, and checked before each
 * request against the administrator's `max_daily_spend`. One ledger per file in the process, so
 * the windows of one backend add to the same figure.
 */
export class SpendLedger {
    private state: DaySpend | undefined;

    private constructor(readonly path: string, private readonly clock: () => Date) { }

    static at(path: string, clock: () => Date = () => new Date()): SpendLedger {
        let ledger = ledgers.get(path);
        if (!ledger) {
            ledger = new SpendLedger(path, clock);
            ledgers.set(path, ledger);
        }
        return ledger;
    }

    /** Today's spend in a currency. */
    spent(currency: string): number {
        return this.current().amounts[currency] ?? 0;
    }

    /** Refuses a request once today's spend reached the administrator's limit. */
    check(policy: ManagedPolicy | undefined): void {
        const limit = policy?.maxDailySpend;
        if (!limit) {
            return;
        }
        const spent = this.spent(limit.currency);
        if (spent >= limit.amount) {
            throw new QodeAssistError({
                category: 'Validation',
                message: `Today's spend limit of ${limit.amount.toFixed(2)} ${limit.currency} is reached (${spent.toFixed(2)} ${limit.currency} spent); it is ${MANAGED_LABEL}. Requests go again tomorrow, or ask your administrator to raise it.`
            });
        }
    }

    /** Adds a request's cost to today's figure and saves it. */
    record(cost: UsageCost | undefined): void {
        if (!cost || !(cost.amount > 0)) {
            return;
        }
        const state = this.current();
        state.amounts[cost.currency] = (state.amounts[cost.currency] ?? 0) + cost.amount;
        try {
            mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
            const temp = `${this.path}.${process.pid}.tmp`;
            writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
            renameSync(temp, this.path);
        } catch {
            // Kept in memory: the limit still holds in this process.
        }
    }

    private current(): DaySpend {
        const day = today(this.clock());
        if (this.state?.day !== day) {
            this.state = this.read(day);
        }
        return this.state;
    }

    private read(day: string): DaySpend {
        try {
            const saved = JSON.parse(readFileSync(this.path, 'utf8')) as DaySpend;
            if (saved.day === day && saved.amounts && typeof saved.amounts === 'object') {
                return { day, amounts: Object.fromEntries(Object.entries(saved.amounts).filter(([, amount]) => typeof amount === 'number' && amount >= 0)) };
            }
        } catch {
            // No ledger yet, or an unreadable one: today starts at zero.
        }
        return { day, amounts: {} };
    }
}
