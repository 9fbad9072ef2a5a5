import { ApplicationError } from '@theia/core/lib/common/application-error';

/** Who refused an image, and the chat agents the user can switch to instead. */
export interface ImagesNotTakenData {
    agent: string;
    imageAgents: string[];
}

/**
 * An image attached for an agent that takes none (core's ImagesNotTakenError), as it crosses the
 * RPC: its data survives, so the composer offers the agents that take images without reading the message.
 */
export const ImagesNotTaken = ApplicationError.declare(-32651, (message: string, data: ImagesNotTakenData) => ({ message, data }));
