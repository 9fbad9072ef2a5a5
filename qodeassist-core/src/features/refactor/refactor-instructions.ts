import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../config/durable-file';
import { QodeAssistError } from '../../wire/error-info';

export const INSTRUCTION_FILE_VERSION = 1;

const instructionSchema = z.object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
    name: z.string().trim().min(1, 'a name is required').max(120),
    body: z.string().trim().min(1, 'the instruction text is empty'),
    version: z.literal(INSTRUCTION_FILE_VERSION)
}).strict();

export type InstructionScope = 'user' | 'project';

/** A saved refactor instruction, as its JSON file holds it, and where it came from. */
export interface SavedInstruction {
    id: string;
    name: string;
    body: string;
    scope: InstructionScope;
    file: string;
}

/** A file in an instructions folder that could not be read; it is left as it is. */
export interface InstructionIssue {
    file: string;
    message: string;
}

export interface InstructionFolders {
    /** `~/.qodeassist/instructions` */
    user: string;
    /** `<workspace>/.qodeassist/instructions`: shadows user instructions of the same name. */
    project?: string;
}

export function defaultInstructionFolders(userHome: string, workspace?: string): InstructionFolders {
    return { user: join(userHome, '.qodeassist', 'instructions'), project: workspace ? join(workspace, '.qodeassist', 'instructions') : undefined };
}

/**
 * The custom-instructions library: one JSON file per instruction (`{id, name, body, version}`)
 * in the user's folder and the project's; a project instruction shadows a user one with the
 * same name. Files are written atomically; a broken file is reported, never overwritten.
 */
export class InstructionLibrary {
    constructor(private readonly folders: InstructionFolders) { }

    async list(): Promise<{ instructions: SavedInstruction[]; issues: InstructionIssue[] }> {
        const issues: InstructionIssue[] = [];
        const byName = new Map<string, SavedInstruction>();
        for (const scope of ['user', 'project'] as const) {
            for (const instruction of await this.read(scope, issues)) {
                byName.set(instruction.name.toLowerCase(), instruction);
            }
        }
        const instructions = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
        return { instructions, issues };
    }

    /** Adds an instruction, or replaces the one with this id in that scope. */
    async save(input: { id?: string; name: string; body: string }, scope: InstructionScope = 'user'): Promise<SavedInstruction> {
        const folder = this.folderOf(scope);
        const existing = await this.read(scope, []);
        // Every file name is taken, the unreadable ones too: a new instruction never lands on a file the user still has to fix.
        const taken = new Set((await readdir(folder).catch(() => [] as string[])).filter(name => name.endsWith('.json')).map(name => name.slice(0, -'.json'.length)));
        const id = input.id ?? uniqueId(slug(input.name), taken);
        if (input.id && !existing.some(instruction => instruction.id === input.id)) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no ${scope} instruction "${input.id}" to change; it was deleted or its file is broken. Reopen the picker.` });
        }
        const parsed = instructionSchema.safeParse({ id, name: input.name.trim(), body: input.body.trim(), version: INSTRUCTION_FILE_VERSION });
        if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new QodeAssistError({ category: 'Validation', message: `The instruction cannot be saved: ${issue.path.join('.') || 'it'} — ${issue.message}.` });
        }
        const clash = existing.find(instruction => instruction.id !== id && instruction.name.toLowerCase() === parsed.data.name.toLowerCase());
        if (clash) {
            throw new QodeAssistError({ category: 'Validation', message: `There is already an instruction named "${clash.name}" (${clash.file}). Pick another name, or edit that one.` });
        }
        const file = join(folder, `${id}.json`);
        await writeFileAtomic(file, `${JSON.stringify(parsed.data, undefined, 2)}\n`, 0o644);
        return { ...parsed.data, scope, file };
    }

    /** A copy named "<name> (copy)" (then "(copy 2)"…) in the same scope. */
    async duplicate(id: string, scope: InstructionScope): Promise<SavedInstruction> {
        const original = await this.get(id, scope);
        const names = new Set((await this.read(scope, [])).map(instruction => instruction.name.toLowerCase()));
        let name = `${original.name} (copy)`;
        for (let n = 2; names.has(name.toLowerCase()); n++) {
            name = `${original.name} (copy ${n})`;
        }
        return this.save({ name, body: original.body }, scope);
    }

    async delete(id: string, scope: InstructionScope): Promise<void> {
        const instruction = await this.get(id, scope);
        await rm(instruction.file);
    }

    async get(id: string, scope: InstructionScope): Promise<SavedInstruction> {
        const found = (await this.read(scope, [])).find(instruction => instruction.id === id);
        if (!found) {
            throw new QodeAssistError({ category: 'Validation', message: `There is no ${scope} instruction "${id}" in ${this.folderOf(scope)}; it was deleted or renamed. Reopen the picker.` });
        }
        return found;
    }

    private folderOf(scope: InstructionScope): string {
        const folder = scope === 'user' ? this.folders.user : this.folders.project;
        if (!folder) {
            throw new QodeAssistError({ category: 'Validation', message: 'Project instructions need an open workspace folder. Save it as a user instruction, or open a folder.' });
        }
        return folder;
    }

    private async read(scope: InstructionScope, issues: InstructionIssue[]): Promise<SavedInstruction[]> {
        const folder = scope === 'user' ? this.folders.user : this.folders.project;
        if (!folder) {
            return [];
        }
        const names = await readdir(folder).catch(() => [] as string[]);
        const read: SavedInstruction[] = [];
        for (const name of names.filter(candidate => candidate.endsWith('.json')).sort()) {
            const file = join(folder, name);
            try {
                const parsed = instructionSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
                if (!parsed.success) {
                    const issue = parsed.error.issues[0];
                    issues.push({ file, message: `${issue.path.join('.') || 'the file'}: ${issue.message}. Fix the file: it needs {"id", "name", "body", "version": ${INSTRUCTION_FILE_VERSION}}.` });
                } else if (`${parsed.data.id}.json` !== name) {
                    issues.push({ file, message: `its id "${parsed.data.id}" does not match the file name; rename the file to ${parsed.data.id}.json or fix the id.` });
                } else {
                    read.push({ ...parsed.data, scope, file });
                }
            } catch (error) {
                issues.push({ file, message: `${error instanceof Error ? error.message : String(error)}. Fix the JSON; the file is left as it is.` });
            }
        }
        return read;
    }
}

function slug(name: string): string {
    return name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'instruction';
}

function uniqueId(base: string, taken: ReadonlySet<string>): string {
    let id = base;
    for (let n = 2; taken.has(id); n++) {
        id = `${base}-${n}`;
    }
    return id;
}
