import { existsSync, FSWatcher, readdirSync, readFileSync, realpathSync, statSync, watch } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { HistoryBlock } from '../context/conversation-history';
import { skillInvocation } from '../protocol';
import { AnyTool, defineTool } from '../tools/tool';
import { capHead } from '../tools/output-cap';

export interface Skill {
    name: string;
    description: string;
    license?: string;
    compatibility?: string;
    allowedTools: string[];
    metadata: Record<string, unknown>;
    alwaysOn: boolean;
    body: string;
    /** True when the body was longer than the cap and was cut. */
    truncated: boolean;
    /** When truncated: the note load_skill adds, saying how much was cut. */
    cutNote?: string;
    path: string;
    scope: 'project' | 'user';
}

export interface SkillIssue {
    path: string;
    message: string;
}

export interface SkillRoot {
    dir: string;
    scope: 'project' | 'user';
}

/** Project skills first, so they win on a name clash; within a scope `.qodeassist` before `.claude`. */
export function defaultSkillRoots(workspace: string | undefined, home = homedir()): SkillRoot[] {
    return [
        ...(workspace ? [{ dir: join(workspace, '.qodeassist', 'skills'), scope: 'project' as const }, { dir: join(workspace, '.claude', 'skills'), scope: 'project' as const }] : []),
        { dir: join(home, '.qodeassist', 'skills'), scope: 'user' },
        { dir: join(home, '.claude', 'skills'), scope: 'user' }
    ];
}

const FrontmatterSchema = z.looseObject({
    name: z.string().regex(/^[a-z0-9-]{1,64}$/, 'name must be 1–64 characters of a–z, 0–9 and "-"'),
    description: z.string().min(1, 'description is empty').max(1024, 'description is longer than 1024 characters'),
    license: z.string().optional(),
    compatibility: z.string().optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
    metadata: z.record(z.string(), z.unknown()).optional()
});

const DEFAULT_BODY_CAP = 20_000;
const LOAD_SKILL_PARAMETERS = z.strictObject({ name: z.string().min(1) });

/**
 * Skills: folders with a SKILL.md (YAML frontmatter + Markdown body) under the skill roots.
 * Gives the catalog for the system prompt, the always-on bodies, `/name` invocations and
 * the load_skill tool; invalid skills are reported with the reason, never half-loaded.
 */
export class SkillsEngine {
    private skills = new Map<string, Skill>();
    private problems: SkillIssue[] = [];
    private readonly watchers: FSWatcher[] = [];
    private readonly listeners = new Set<() => void>();
    private timer: NodeJS.Timeout | undefined;

    constructor(private readonly roots: readonly SkillRoot[], private readonly options: { workspace?: string; maxBodyChars?: number } = {}) {
        this.reload();
    }

    get all(): Skill[] {
        return [...this.skills.values()];
    }

    get issues(): readonly SkillIssue[] {
        return this.problems;
    }

    get(name: string): Skill | undefined {
        return this.skills.get(name);
    }

    reload(): void {
        const skills = new Map<string, Skill>();
        const problems: SkillIssue[] = [];
        for (const root of this.roots) {
            if (!existsSync(root.dir)) {
                continue;
            }
            if (root.scope === 'project' && this.options.workspace && !inside(realpathSync(this.options.workspace), realpathSync(root.dir))) {
                problems.push({ path: root.dir, message: 'the skills folder leads outside the workspace, so it is ignored' });
                continue;
            }
            for (const entry of readdirSync(root.dir).sort()) {
                const folder = join(root.dir, entry);
                const file = join(folder, 'SKILL.md');
                if (!statSync(folder).isDirectory() || !existsSync(file)) {
                    continue;
                }
                const parsed = this.parse(file, entry, root.scope);
                if ('message' in parsed) {
                    problems.push(parsed);
                } else if (!skills.has(parsed.name)) {
                    skills.set(parsed.name, parsed);
                }
            }
        }
        this.skills = skills;
        this.problems = problems;
    }

    /** The system-prompt layer `skills.catalog`: names and descriptions, bodies on demand. */
    catalog(): string {
        const listed = this.all.filter(skill => !skill.alwaysOn);
        if (listed.length === 0) {
            return '';
        }
        return ['Skills are instructions for particular tasks. When one fits the request, call load_skill with its name first.',
            ...listed.map(skill => `- ${skill.name}: ${skill.description}`)].join('\n');
    }

    /** The bodies of always-on skills, for the system prompt. */
    alwaysOnText(): string {
        return this.all.filter(skill => skill.alwaysOn).map(skill => `<skill name="${skill.name}">\n${skill.body}\n</skill>`).join('\n\n');
    }

    /**
     * `/name rest of the message` → a skill-invocation block (persisted in history) and the rest as text.
     * Returns undefined when the message does not start with a known skill.
     */
    invoke(message: string): HistoryBlock[] | undefined {
        const invoked = skillInvocation(message);
        const skill = invoked ? this.skills.get(invoked.name) : undefined;
        if (!invoked || !skill) {
            return undefined;
        }
        const rest = invoked.rest;
        return [{ type: 'skill_invocation', name: skill.name, body: skill.body }, ...(rest ? [{ type: 'text' as const, text: rest }] : [])];
    }

    /** The load_skill tool over this engine. */
    loadSkillTool(): AnyTool {
        return defineTool({
            name: 'load_skill',
            description: 'Load the full instructions of a skill listed in the system prompt.',
            permission: 'read',
            parameters: LOAD_SKILL_PARAMETERS,
            run: async args => {
                const skill = this.skills.get(args.name);
                if (!skill) {
                    return { isError: true, content: `There is no skill "${args.name}". Available: ${this.all.map(s => s.name).join(', ') || 'none'}.` };
                }
                return { content: `${skill.body}${skill.cutNote ?? ''}` };
            }
        });
    }

    onDidChange(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    /** Watches the existing skill roots and reloads on change. */
    start(): this {
        for (const root of this.roots) {
            if (existsSync(root.dir)) {
                const watcher = watch(root.dir, { recursive: true, persistent: false }, () => {
                    clearTimeout(this.timer);
                    this.timer = setTimeout(() => {
                        this.reload();
                        this.listeners.forEach(listener => listener());
                    }, 100);
                    this.timer.unref();
                });
                watcher.on('error', () => watcher.close());
                this.watchers.push(watcher);
            }
        }
        return this;
    }

    dispose(): void {
        clearTimeout(this.timer);
        this.watchers.splice(0).forEach(watcher => watcher.close());
        this.listeners.clear();
    }

    private parse(file: string, folder: string, scope: 'project' | 'user'): Skill | SkillIssue {
        const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
        const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
        if (!match) {
            return { path: file, message: 'SKILL.md must start with YAML frontmatter between --- lines' };
        }
        let frontmatter: unknown;
        try {
            frontmatter = parseYaml(match[1]);
        } catch (error) {
            return { path: file, message: `the frontmatter is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
        }
        const result = FrontmatterSchema.safeParse(frontmatter ?? {});
        if (!result.success) {
            return { path: file, message: result.error.issues.map(issue => `${issue.path.join('.') || 'frontmatter'}: ${issue.message}`).join('; ') };
        }
        const data = result.data;
        if (data.name !== folder) {
            return { path: file, message: `name "${data.name}" must equal its folder name "${folder}"` };
        }
        const cap = this.options.maxBodyChars ?? DEFAULT_BODY_CAP;
        const body = match[2].trim();
        const allowed = data['allowed-tools'];
        return {
            name: data.name, description: data.description, license: data.license, compatibility: data.compatibility,
            allowedTools: Array.isArray(allowed) ? allowed : allowed ? allowed.split(/[,\s]+/).filter(Boolean) : [],
            metadata: data.metadata ?? {}, alwaysOn: data.metadata?.['always-on'] === true,
            body: body.length > cap ? body.slice(0, cap) : body, truncated: body.length > cap, path: file, scope,
            ...body.length > cap ? { cutNote: capHead(body, cap, `a skill is loaded up to ${cap} characters; files the skill names can be read with read_file`).slice(cap) } : {}
        };
    }
}

function inside(root: string, path: string): boolean {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
