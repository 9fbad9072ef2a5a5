/** What one assembly put into the request, and what it left out: the token counter and the log read this. */
export interface ContextManifest {
    layers: Array<{ name: string; tokens: number }>;
    history: { messages: number; tokens: number; toolRounds: number };
    pinned: Array<{ id: string; label: string; tokens: number }>;
    task: { tokens: number; images: number };
    tools: { count: number; tokens: number };
    /** What was left out to fit, and why: `superseded` (an older build or problem list), `low-signal` (an old read or search), `old`. */
    elisions: Array<{ kind: 'tool_result' | 'tool_round' | 'attachment' | 'image'; detail: string; tokens: number; reason?: 'superseded' | 'low-signal' | 'old' }>;
    /** Blocks the assembler injected besides layers and pins (the working set), and where. */
    sections: Array<{ name: string; tokens: number; placement: string }>;
    /** Tool-trace repairs made on the request's copy of the history, by cause; empty on the normal paths. */
    repairs: Record<string, number>;
    /** Tokens per category: what the request spends its budget on. */
    budget: { system: number; tools: number; history: number; workingSet: number; pinned: number; protectedEvidence: number };
    /** `image_not_taken`: an earlier image went as a placeholder line, because the agent takes no images. */
    filters: Array<{ kind: 'unsigned_thinking' | 'orphaned_tool_use' | 'orphaned_tool_result' | 'failed_load' | 'image_not_taken'; detail: string }>;
    estimate: number;
    limit: number;
    /** Set when the estimate is close to the limit: the UI warns before the budget refuses. */
    warning?: string;
    /** Set when the context does not fit even after elisions: the request would be refused with this message. */
    refusal?: string;
}

export function formatManifest(manifest: ContextManifest): string {
    const layers = manifest.layers.map(layer => `${layer.name}: ~${layer.tokens}`).join(', ');
    const pinned = manifest.pinned.map(pin => `${pin.label}: ~${pin.tokens}`).join(', ');
    const lines = [
        `layers: { ${layers} }`,
        `history: ${manifest.history.messages} messages, ~${manifest.history.tokens} tok (${manifest.history.toolRounds} tool rounds)`,
        `pinned: { ${pinned} }`,
        `task: ~${manifest.task.tokens} tok, ${manifest.task.images} image(s)`,
        `tools: ${manifest.tools.count} (~${manifest.tools.tokens} tok)`,
        `sections: { ${manifest.sections.map(section => `${section.name} at ${section.placement}: ~${section.tokens}`).join(', ')} }`,
        `elided: [ ${manifest.elisions.map(e => `${e.kind} ${e.detail} (~${e.tokens}${e.reason ? `, ${e.reason}` : ''})`).join(', ')} ]`,
        `filtered: [ ${manifest.filters.map(f => `${f.kind} ${f.detail}`).join(', ')} ]`,
        `repairs: { ${Object.entries(manifest.repairs).map(([cause, count]) => `${cause}: ${count}`).join(', ')} }`,
        `budget: { ${Object.entries(manifest.budget).map(([category, tokens]) => `${category}: ~${tokens}`).join(', ')} }`,
        `estimate: ~${manifest.estimate} / limit ${manifest.limit}`
    ];
    return lines.join('\n');
}
