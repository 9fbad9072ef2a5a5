import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';

export interface AxeViolation {
    id: string;
    impact: string | null;
    help: string;
    nodes: Array<{ target: string; summary: string }>;
}

/** The impacts a view may not have. */
const BLOCKING = new Set(['serious', 'critical']);

/**
 * Runs axe-core over one of our views (its root element only: Theia's own shell is not ours to
 * fix) and returns the serious and critical violations.
 */
export async function seriousViolations(page: Page, rootSelector: string): Promise<AxeViolation[]> {
    // Away from every control: a hovered button shows Theia's hover colours, not the view's.
    await page.mouse.move(0, 0);
    const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
    if (!loaded) {
        await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
    }
    const violations = await page.evaluate(async selector => {
        const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> }> } }).axe;
        if (!document.querySelector(selector)) {
            throw new Error(`nothing matches ${selector}: the view is not open`);
        }
        const result = await axe.run({ include: [selector] }, { resultTypes: ['violations'] });
        return result.violations.map(violation => ({
            id: violation.id, impact: violation.impact, help: violation.help,
            nodes: violation.nodes.map(node => ({ target: node.target.map(String).join(' '), summary: (node.failureSummary ?? '').replace(/\s+/g, ' ') }))
        }));
    }, rootSelector);
    return violations.filter(violation => violation.impact !== null && BLOCKING.has(violation.impact));
}

/** The violations as a reader wants them in a failed test: rule, impact, what it asks, each element and why. */
export function describeViolations(violations: readonly AxeViolation[]): string {
    return violations.map(violation => `${violation.impact} ${violation.id}: ${violation.help}\n`
        + violation.nodes.map(node => `    ${node.target}\n      ${node.summary}`).join('\n')).join('\n');
}

/**
 * Controls in a view without an accessible name or a tooltip: every button, link, select, input
 * and text area needs both (a control inside a label with a tooltip takes the label's).
 */
export async function controlsWithoutNameOrTooltip(page: Page, rootSelector: string): Promise<string[]> {
    return page.evaluate(selector => {
        const missing: string[] = [];
        for (const root of Array.from(document.querySelectorAll(selector))) {
            for (const control of Array.from(root.querySelectorAll<HTMLElement>('button, a[href], select, input, textarea'))) {
                if (!control.getClientRects().length) {
                    continue; // Not shown (a closed details, a hidden row).
                }
                const label = control.closest('label');
                const name = control.getAttribute('aria-label')?.trim() || control.getAttribute('aria-labelledby') && 'labelled'
                    || label?.textContent?.trim() || (control.tagName === 'BUTTON' || control.tagName === 'A' ? control.textContent?.trim() : '');
                const tooltip = control.getAttribute('title')?.trim() || label?.getAttribute('title')?.trim();
                if (!name || !tooltip) {
                    const what = control.getAttribute('data-action') ?? control.getAttribute('data-field') ?? control.className;
                    missing.push(`${control.tagName.toLowerCase()}[${what}]${name ? '' : ' has no name'}${tooltip ? '' : ' has no tooltip'}`);
                }
            }
        }
        return missing;
    }, rootSelector);
}
