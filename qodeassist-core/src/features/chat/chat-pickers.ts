import { ConfigurationProvider, isProjectLayerLoaded } from '../../agents/configuration-service';
import { QodeAssistRuntime } from '../../runtime/qodeassist-runtime';
import { findFiles } from '../../tools/file-tools';
import { WorkspaceFiles } from '../../tools/workspace-files';
import { externalAgentChoices } from './agent-turn';
import { agentChoices } from './chat-agents';
import { AgentChoice, ChatTurnOptions, RoleChoice, SkillChoice } from './chat-types';

/** What the chat's composer offers to choose from, for a workspace: agents, roles, skills, files to @-mention. */
export class ChatPickers {
    constructor(private readonly configurations: ConfigurationProvider, private readonly runtime: QodeAssistRuntime) {}

    /** The chat picker's agents: the chat roster in order, then the agents marked for chat. */
    agents(workspacePath: string | undefined): AgentChoice[] {
        return agentChoices(this.configurations.forWorkspace(workspacePath).current, 'chat');
    }

    /** The external (ACP) agents the user configured, each saying why it cannot be picked now (not installed, workspace not trusted). */
    externalAgents(workspacePath: string | undefined): Promise<AgentChoice[]> {
        return externalAgentChoices(this.configurations, workspacePath);
    }

    roles(workspacePath: string | undefined): RoleChoice[] {
        const configuration = this.configurations.forWorkspace(workspacePath).current;
        return [...configuration.roles.values()].map(role => ({ id: role.id, name: role.name, description: role.description ?? '' }));
    }

    skills(workspacePath: string | undefined, settings?: ChatTurnOptions['skills']): SkillChoice[] {
        const engine = this.runtime.skillsFor(workspacePath, settings, isProjectLayerLoaded(this.configurations, workspacePath));
        return (engine?.all ?? []).map(skill => ({ name: skill.name, description: skill.description }));
    }

    /** Workspace files matching an @-mention query (ignore rules applied), workspace-relative. */
    async findFiles(workspacePath: string, query: string, options: { useGitignore: boolean }): Promise<string[]> {
        const files = new WorkspaceFiles([workspacePath], { useGitignore: options.useGitignore });
        return (await findFiles({ files }, query, 30)).map(file => file.relative);
    }
}
