import { AgentChoice } from '../../common/chat-protocol';
import { ImagesNotTaken, ImagesNotTakenData } from '../../common/images-not-taken';

/** An image the composer holds back because the agent takes none: attached again when the user switches to one that does. */
export interface HeldImage {
    name: string;
    mediaType: string;
    bytes: Uint8Array;
}

/**
 * What the composer says about images and the agent: `held` images were not attached (the agent
 * takes none); `attached` ones were attached for another agent and cannot go with this one.
 * `imageAgents` are the chat agents to offer instead.
 */
export interface ImageNotice extends ImagesNotTakenData {
    held: HeldImage[];
    attached: string[];
}

/**
 * The refusal the composer knows without asking the backend: an image for the agent chosen in the
 * picker, when the picker's data says it takes none. (With "Auto", the backend finds the roster's agent and refuses.)
 */
export function localImageRefusal(agents: readonly AgentChoice[], chosen: string, name: string, mediaType: string): Error | undefined {
    const agent = chosen ? agents.find(candidate => candidate.name === chosen) : undefined;
    if (!mediaType.startsWith('image/') || !agent || agent.images) {
        return undefined;
    }
    return ImagesNotTaken(`${agent.name} takes no images, so "${name}" was not attached.`, { agent: agent.name, imageAgents: imageAgentsOf(agents) });
}

export function imageAgentsOf(agents: readonly AgentChoice[]): string[] {
    return agents.filter(agent => agent.images).map(agent => agent.name);
}

/** The refusal's data, when an upload failed because the agent takes no images. */
export function imagesNotTakenOf(error: unknown): ImagesNotTakenData | undefined {
    return error instanceof Error && ImagesNotTaken.is(error) ? error.data : undefined;
}

/** Adds a refused image to the notice (several may be dropped at once). */
export function holdImage(notice: ImageNotice | undefined, refusal: ImagesNotTakenData, image: HeldImage): ImageNotice {
    const same = notice?.agent === refusal.agent ? notice : undefined;
    return { ...refusal, held: [...same?.held ?? [], image], attached: same?.attached ?? [] };
}

/**
 * After the agent changed: images already attached cannot go with a chosen agent that takes none (the
 * send would be refused), so the notice says so at once; with an agent that takes them, nothing to say.
 */
export function noticeForAttached(agents: readonly AgentChoice[], chosen: string, attachedImages: readonly string[]): ImageNotice | undefined {
    const agent = chosen ? agents.find(candidate => candidate.name === chosen) : undefined;
    if (!agent || agent.images || attachedImages.length === 0) {
        return undefined;
    }
    return { agent: agent.name, imageAgents: imageAgentsOf(agents), held: [], attached: [...attachedImages] };
}

/** The notice as one sentence (the view adds a button per agent to switch to). */
export function noticeText(notice: ImageNotice): string {
    const quoted = (names: readonly string[]) => names.map(name => `"${name}"`).join(', ');
    const what = notice.held.length > 0
        ? `so ${quoted(notice.held.map(image => image.name))} ${notice.held.length > 1 ? 'were' : 'was'} not attached`
        : `so ${quoted(notice.attached)} cannot go with the next message`;
    const offer = notice.imageAgents.length > 0
        ? (notice.held.length > 0 ? `Switch to an agent that takes images to attach ${notice.held.length > 1 ? 'them' : 'it'}:` : 'Switch to an agent that takes images, or remove the image:')
        : 'No chat agent takes images; describe the image in words.';
    return `${notice.agent} takes no images (its request template sends text only), ${what}. ${offer}`;
}
