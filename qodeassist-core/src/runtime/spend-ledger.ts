import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { MANAGED_LABEL, ManagedPolicy, policySource } from '../config/managed-policy';
import { UsageCost } from '../config/pricing';
import { QodeAssistError } from '../wire/error-info';
import { processAlive } from '../config/process-alive';
import { withFileLock } from './ledger-lock';

/** A request in flight holds its estimate here until it ends. */
interface Reservation {
    currency: string;
    amount: number;
    pid: number;
    host: string;
    /** When it was made (ms since the epoch): one that outlives any request was left by a process that crashed elsewhere. */
    at: number;
}

interface LedgerState {
    day: string;
    /** Settled amounts per currency: prices in other currencies than the limit's are kept apart, never converted. */
    amounts: Record<string, number>;
    reservations: Record<string, Reservation>;
}

/** A reservation older than this belongs to no running request (a request of hours is cut by the limits long before). */
const RESERVATION_TTL_MS = 6 * 60 * 60 * 1000;

/** Today in the backend's local time, as the day a spend limit counts. */
function today(now: Date): string {
    return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** A request's hold on the day's budget: settled to what it cost (or released: nothing) when it ends, once. */
export interface SpendReservation {
    settle(cost: UsageCost | undefined): void;
}

const ledgers = new Map<string, SpendLedger>();

/**
 * What one user spent today on requests with a price, kept in the state dir's `spend.json` so a
 * restart does not reset it, and shared by every process of the user (IDE backends, the bench):
 * each request RESERVES its estimate before it is sent and SETTLES to its actual cost when it
 * ends, under a lock file, so concurrent requests cannot all pass the limit and no process
 * overwrites another's figure. A request goes while today's spend is below the limit and its
 * estimate fits beside the requests in flight; alone, it goes while anything is left (its
 * estimate is a worst case: max_tokens of output). Where the file cannot be written (a read-only
 * home) the figure is kept in this process only.
 */
export class SpendLedger {
    /** This process's copy: the figure when the file cannot be written. */
    private memory: LedgerState | undefined;

    private constructor(readonly path: string, private readonly clock: () => Date) { }

    static at(path: string, clock: () => Date = () => new Date()): SpendLedger {
        let ledger = ledgers.get(path);
        if (!ledger) {
            ledger = new SpendLedger(path, clock);
            ledgers.set(path, ledger);
        }
        return ledger;
    }

    /** Today's settled spend in a currency. */
    spent(currency: string): number {
        return this.transact(state => state.amounts[currency] ?? 0, false);
    }

    /** Today's reserved amount in a currency: requests in flight. */
    reserved(currency: string): number {
        return this.transact(state => sumReserved(state, currency), false);
    }

    /**
     * Holds `estimate` for a request about to be sent, or refuses it (a Validation error naming the
     * administrator, the rule and the figures) when the limit is reached or the estimate does not
     * fit beside the requests in flight. Without a limit nothing is held; the cost still counts.
     */
    reserve(policy: ManagedPolicy | undefined, estimate: UsageCost | undefined): SpendReservation {
        const limit = policy?.maxDailySpend;
        const id = randomUUID();
        // Without a limit nothing is held: the cost is still counted when the request settles.
        const held = limit !== undefined && this.transact(state => {
            const spent = state.amounts[limit.currency] ?? 0;
            const reserved = sumReserved(state, limit.currency);
            const own = estimate && estimate.currency === limit.currency && estimate.amount > 0 ? estimate.amount : 0;
            const rule = `max_daily_spend in ${policySource(policy!)}, ${MANAGED_LABEL}`;
            const amount = (value: number) => `${value.toFixed(2)} ${limit.currency}`;
            if (spent >= limit.amount) {
                throw new QodeAssistError({
                    category: 'Validation',
                    message: `Today's spend limit of ${amount(limit.amount)} is reached (${amount(spent)} spent today): ${rule}. Requests go again tomorrow, or ask your administrator to raise it.`
                });
            }
            if (reserved > 0 && spent + reserved + own > limit.amount) {
                throw new QodeAssistError({
                    category: 'Validation',
                    message: `Today's spend limit of ${amount(limit.amount)} has no room for this request (estimated at up to ${amount(own)}): ${amount(spent)} spent today and ${amount(reserved)} held by requests in flight; ${rule}. Try again when they end.`
                });
            }
            state.reservations[id] = { currency: limit.currency, amount: own, pid: process.pid, host: hostname(), at: this.clock().getTime() };
            return true;
        }, true);
        let settled = false;
        return {
            settle: cost => {
                if (settled) {
                    return;
                }
                settled = true;
                const counts = cost !== undefined && cost.amount > 0;
                if (!held && !counts) {
                    return;
                }
                this.transact(state => {
                    delete state.reservations[id];
                    if (counts) {
                        state.amounts[cost.currency] = (state.amounts[cost.currency] ?? 0) + cost.amount;
                    }
                }, true);
            }
        };
    }

    /** Reads (and with `write`, changes and saves) the ledger under its lock; the process's copy when the file is out of reach. */
    private transact<T>(change: (state: LedgerState) => T, write: boolean): T {
        try {
            mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
            return withFileLock(this.path, () => {
                const state = this.read();
                const result = change(state);
                this.memory = state;
                if (write) {
                    try {
                        this.save(state);
                    } catch {
                        // Not saved (a full disk): kept in this process, as when there is no folder.
                    }
                }
                return result;
            });
        } catch (error) {
            if (error instanceof QodeAssistError) {
                throw error;
            }
            // No folder, no lock, no write: the limit still holds in this process.
            const state = this.fresh(this.memory);
            this.memory = state;
            return change(state);
        }
    }

    private save(state: LedgerState): void {
        const temp = `${this.path}.${process.pid}.tmp`;
        writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
        renameSync(temp, this.path);
    }

    private read(): LedgerState {
        let saved: Partial<LedgerState> | undefined;
        try {
            saved = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<LedgerState>;
        } catch {
            // No ledger yet, or an unreadable one: today starts at zero.
        }
        return this.fresh(saved);
    }

    /** A state for today: yesterday's amounts are gone, reservations of ended processes (or too old) dropped, bad figures ignored. */
    private fresh(saved: Partial<LedgerState> | undefined): LedgerState {
        const now = this.clock();
        const day = today(now);
        const amounts = saved?.day === day && saved.amounts && typeof saved.amounts === 'object'
            ? Object.fromEntries(Object.entries(saved.amounts).filter(([, amount]) => typeof amount === 'number' && amount >= 0))
            : {};
        const reservations: Record<string, Reservation> = {};
        const host = hostname();
        for (const [id, held] of Object.entries(saved?.reservations && typeof saved.reservations === 'object' ? saved.reservations : {})) {
            const valid = held && typeof held.amount === 'number' && held.amount >= 0 && typeof held.currency === 'string' && typeof held.at === 'number';
            const ended = valid && held.host === host && typeof held.pid === 'number' && !processAlive(held.pid);
            if (valid && !ended && now.getTime() - held.at < RESERVATION_TTL_MS) {
                reservations[id] = held;
            }
        }
        return { day, amounts, reservations };
    }
}

function sumReserved(state: LedgerState, currency: string): number {
    return Object.values(state.reservations).filter(held => held.currency === currency).reduce((sum, held) => sum + held.amount, 0);
}
