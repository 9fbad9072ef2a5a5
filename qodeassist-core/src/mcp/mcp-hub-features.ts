import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { QodeAssistError } from '../wire/error-info';
import {
    EMPTY_CATALOG, expandTemplate, McpCatalog, McpContentPart, McpPromptResult, McpResourceTemplateInfo, promptResult, resourceParts
} from './mcp-catalog';
import { McpTimeouts } from './mcp-config';
import { McpElicitationPrompt } from './mcp-elicitation';
import { McpFeatureHost } from './mcp-server-features';

/** What the hub's features need of one server's connection. */
export interface McpServerHandle {
    config: { name: string; timeouts: McpTimeouts };
    catalog: McpCatalog;
    /** The connected client; throws a typed error while the server is not ready. */
    ready(): Client;
}

/**
 * A hub's resources, prompts, roots and questions, across its servers: what the composer's `@`
 * and `/` offer, reading an attached resource, getting a prompt, the workspace folders sent as
 * roots, and where servers' questions are shown.
 */
export class McpHubFeatures {
    constructor(
        private readonly servers: () => Iterable<McpServerHandle>,
        private readonly host: McpFeatureHost
    ) { }

    /** What the ready servers offer besides tools. */
    catalog(): McpCatalog {
        const all: McpCatalog = { resources: [], templates: [], prompts: [] };
        for (const server of this.servers()) {
            const catalog = server.catalog ?? EMPTY_CATALOG;
            all.resources.push(...catalog.resources);
            all.templates.push(...catalog.templates);
            all.prompts.push(...catalog.prompts);
        }
        return all;
    }

    /**
     * Reads a resource of a ready server as attachments within the chat's limits. Only a URI the
     * server listed, or one of its templates matches, is read: the composer attaches what was offered.
     */
    async readResource(server: string, uri: string): Promise<McpContentPart[]> {
        const handle = this.handle(server);
        const offered = handle.catalog.resources.some(resource => resource.uri === uri)
            || handle.catalog.templates.some(template => matches(template.uriTemplate, uri));
        if (!offered) {
            throw new QodeAssistError({ category: 'Validation', message: `The MCP server "${server}" does not offer the resource ${uri}; choose one from the @ list.` });
        }
        const result = await handle.ready().readResource({ uri }, { timeout: handle.config.timeouts.callMs });
        return resourceParts(server, uri, result);
    }

    /** Reads a template's resource with the user's arguments. */
    async readTemplate(server: string, name: string, values: Record<string, string>): Promise<McpContentPart[]> {
        const template = this.handle(server).catalog.templates.find(candidate => candidate.name === name);
        if (!template) {
            throw new QodeAssistError({ category: 'Validation', message: `The MCP server "${server}" has no resource template "${name}" (any more); choose one from the @ list.` });
        }
        return this.readResource(server, expandTemplate(template as McpResourceTemplateInfo, values));
    }

    /** A prompt with the user's arguments, as the server returns it. */
    async getPrompt(server: string, name: string, values: Record<string, string>): Promise<McpPromptResult> {
        const handle = this.handle(server);
        const prompt = handle.catalog.prompts.find(candidate => candidate.name === name);
        if (!prompt) {
            throw new QodeAssistError({ category: 'Validation', message: `The MCP server "${server}" has no prompt "${name}" (any more); choose one from the / list.` });
        }
        const missing = prompt.arguments.filter(argument => argument.required && !values[argument.name]);
        if (missing.length > 0) {
            throw new QodeAssistError({ category: 'Validation', message: `${prompt.command} needs ${missing.map(argument => `"${argument.name}"`).join(', ')}; fill them in and send it again.` });
        }
        // Only the prompt's own arguments go to the server.
        const args = Object.fromEntries(prompt.arguments.filter(argument => values[argument.name] !== undefined).map(argument => [argument.name, values[argument.name]]));
        const result = await handle.ready().getPrompt({ name, arguments: args }, { timeout: handle.config.timeouts.callMs });
        return promptResult(server, name, result);
    }

    /**
     * The server's suggestions for one argument of its prompt as typed so far (`completion/complete`,
     * with the other arguments filled in as context); none when the server offers no completions.
     */
    async completePromptArgument(server: string, name: string, argument: string, value: string, values: Record<string, string>): Promise<string[]> {
        const handle = this.handle(server);
        const prompt = handle.catalog.prompts.find(candidate => candidate.name === name);
        if (!prompt?.arguments.some(candidate => candidate.name === argument)) {
            throw new QodeAssistError({ category: 'Validation', message: `The MCP server "${server}" has no prompt "${name}" with an argument "${argument}" (any more); choose the prompt from the / list again.` });
        }
        const client = handle.ready();
        if (!client.getServerCapabilities()?.completions) {
            return [];
        }
        // Only the prompt's own arguments go to the server as context.
        const context = Object.fromEntries(prompt.arguments.filter(other => other.name !== argument && values[other.name]).map(other => [other.name, values[other.name]]));
        const result = await client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: argument, value }, context: { arguments: context } }, { timeout: handle.config.timeouts.listMs });
        // The spec caps a completion at 100 values.
        return result.completion.values.filter(candidate => typeof candidate === 'string').slice(0, 100);
    }

    /** The workspace folders changed: the connected servers are told and ask for the roots again. */
    setRoots(folders: string[]): Promise<void> {
        return this.host.roots.set(folders);
    }

    roots(): Array<{ uri: string; name: string }> {
        return this.host.roots.list();
    }

    /** Where servers' questions are shown from now on (the IDE's chat); without one each is declined. */
    setElicitationPrompt(prompt: McpElicitationPrompt | undefined): void {
        this.host.elicitation = prompt;
    }

    private handle(server: string): McpServerHandle {
        const handle = [...this.servers()].find(candidate => candidate.config.name === server);
        if (!handle) {
            throw new QodeAssistError({ category: 'Config', message: `No MCP server is named "${server}"; check mcp.json.` });
        }
        return handle;
    }
}

function matches(uriTemplate: string, uri: string): boolean {
    try {
        return new UriTemplate(uriTemplate).match(uri) !== null;
    } catch {
        return false;
    }
}
