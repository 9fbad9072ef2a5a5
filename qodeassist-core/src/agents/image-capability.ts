import { syntheticContext } from '../prompt/template-context';

/** Whether an agent takes images, and a note when its file says otherwise than its template can do. */
export interface ImageCapability {
    takes: boolean;
    problem?: { message: string; fix: string };
}

/** The image of the synthetic context the load-time render uses: a body that carries images carries its bytes. */
const SYNTHETIC_IMAGE_DATA = (() => {
    for (const message of syntheticContext().history) {
        for (const block of message.content) {
            if (block.type === 'image') {
                return block.data;
            }
        }
    }
    throw new Error('the synthetic template context has no image block');
})();

/**
 * Derived from the body the agent rendered against the synthetic context, which holds an image:
 * the template takes images when the image's data is in the request. `images = false` in the file
 * wins (a model without vision behind a template that could carry them); `images = true` cannot
 * make a template send what it drops, so it is a notice and the agent takes none.
 */
export function imageCapability(renderedSynthetic: Record<string, unknown>, stated: boolean | undefined): ImageCapability {
    const rendersImages = JSON.stringify(renderedSynthetic).includes(SYNTHETIC_IMAGE_DATA);
    if (stated === false) {
        return { takes: false };
    }
    if (stated === true && !rendersImages) {
        return {
            takes: false,
            problem: {
                message: 'images = true, but its [body] template sends no image blocks (the request it renders drops them), so the chat sends it no images',
                fix: 'remove images = true, or render the messages with a partial that carries images (e.g. openai/messages.njk instead of openai/text-messages.njk)'
            }
        };
    }
    return { takes: rendersImages };
}
