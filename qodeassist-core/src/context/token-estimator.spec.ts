import * as assert from 'node:assert/strict';
import { IMAGE_TOKENS, TokenEstimator } from './token-estimator';

describe('TokenEstimator', () => {
    it('starts from a default ratio and counts images at a fixed cost', () => {
        const estimator = new TokenEstimator(4);
        assert.equal(estimator.estimateText('x'.repeat(400)), 100);
        assert.equal(estimator.estimate({ chars: 400, images: 2 }), 100 + 2 * IMAGE_TOKENS);
    });

    it('moves toward the observed ratio per key, leaving other keys alone', () => {
        const estimator = new TokenEstimator(4);
        estimator.calibrate('claude', { chars: 3000, images: 0 }, 1000);
        assert.equal(estimator.ratio('claude'), 3);
        estimator.calibrate('claude', { chars: 4000, images: 0 }, 1000);
        assert.equal(estimator.ratio('claude'), 3 + 0.3 * (4 - 3));
        assert.equal(estimator.ratio('openai'), 4);
    });

    it('ignores tiny requests and clamps outliers', () => {
        const estimator = new TokenEstimator(4);
        estimator.calibrate('k', { chars: 100, images: 0 }, 1);
        assert.equal(estimator.ratio('k'), 4);
        estimator.calibrate('k', { chars: 100_000, images: 0 }, 10);
        assert.equal(estimator.ratio('k'), 8);
    });
});
