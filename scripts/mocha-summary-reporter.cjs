// Mocha's spec reporter, plus the run's counts written to $QODEASSIST_RESULTS for scripts/test.mjs.
const { writeFileSync } = require('node:fs');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
    constructor(runner, options) {
        super(runner, options);
        runner.once('end', () => {
            const target = process.env.QODEASSIST_RESULTS;
            if (target) {
                const { passes, failures, pending } = this.stats;
                writeFileSync(target, JSON.stringify({ passes, failures, pending }));
            }
        });
    }
}

module.exports = SummaryReporter;
