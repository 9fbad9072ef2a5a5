/** What one assembly put into the request, and what it left out: the token counter and the log read this. */
export interface ContextManifest {
    layers: Array<{ name: string; tokens: number }>;
    history: { messages: number; tokens: number; toolRounds: number };
    pinned: Array<{ id: string; label: string; tokens: number }>;
    task: { tokens: number; images: number };
    tools: { count: number; tokens: number };
    elisions: Array<{ kind: 'tool_result' | 'attachment' | 'image'; detail: string; tokens: number }>;
    filters: Array<{ kind: 'unsigned_thinking' | 'orphaned_tool_use' | 'orphaned_tool_result' | 'failed_load'; detail: string }>;
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
        `elided: [ ${manifest.elisions.map(e => `${e.kind} ${e.detail} (~${e.tokens})`).join(', ')} ]`,
        `filtered: [ ${manifest.filters.map(f => `${f.kind} ${f.detail}`).join(', ')} ]`,
        `estimate: ~${manifest.estimate} / limit ${manifest.limit}`
    ];
    return lines.join('\n');
}
