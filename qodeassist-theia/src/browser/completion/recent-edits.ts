/** A region the user changed, as its lines read after the latest change in it. */
export interface EditRegion {
    /** Absolute path. */
    path: string;
    /** 0-based lines the changes covered. */
    startLine: number;
    endLine: number;
    /** The region's text with a few lines around it, starting at `textLine`. */
    text: string;
    textLine: number;
}

/** One change of a document, as Monaco reports it: the replaced range (1-based lines, before the change) and the new text. */
export interface DocumentChange {
    range: { startLineNumber: number; endLineNumber: number };
    text: string;
}

/** Lines kept around a region on each side, and of a region at most (a paste keeps its middle). */
const AROUND = 2;
const MAX_TEXT_LINES = 24;
/** Changes this close to a region join it. */
const JOIN_LINES = 3;

/**
 * The last edited regions across files, the newest first — kept in the browser, where every
 * keystroke is seen (the backend only hears the requests). A change near a region joins it and
 * makes it the newest; lines added or removed above a region move it. Each region keeps its text
 * as of its last change, so it survives its editor being closed.
 */
export class RecentEdits {
    private regions: EditRegion[] = [];

    constructor(private readonly maxRegions = 12) { }

    /** After `changes` were applied to `path`; `lines(from, to)` reads the document's lines now (0-based, inclusive). */
    record(path: string, changes: readonly DocumentChange[], lines: (from: number, to: number) => string[], lineCount: number): void {
        for (const change of changes) {
            const start = change.range.startLineNumber - 1;
            const removed = change.range.endLineNumber - change.range.startLineNumber;
            const added = change.text.split('\n').length - 1;
            const delta = added - removed;
            const oldEnd = start + removed;
            for (const region of this.regions.filter(other => other.path === path)) {
                if (region.startLine > oldEnd) {
                    region.startLine += delta;
                    region.endLine += delta;
                    region.textLine += delta;
                } else if (region.endLine > oldEnd) {
                    // The change is inside the region: its end moves with the lines.
                    region.endLine += delta;
                }
            }
            const end = start + added;
            const near = this.regions.find(region => region.path === path && region.startLine - JOIN_LINES <= end && start <= region.endLine + JOIN_LINES);
            const region: EditRegion = near
                ? { ...near, startLine: Math.min(near.startLine, start), endLine: Math.max(near.endLine, end) }
                : { path, startLine: start, endLine: end, text: '', textLine: start };
            this.regions = [region, ...this.regions.filter(other => other !== near)].slice(0, this.maxRegions);
            this.refresh(region, lines, lineCount);
        }
    }

    /** The newest regions, at most `count`, as the backend takes them. */
    newest(count: number): Array<{ path: string; startLine: number; text: string }> {
        return this.regions.slice(0, count).map(region => ({ path: region.path, startLine: region.textLine, text: region.text }));
    }

    /** A file was renamed or deleted: its regions go with it. */
    forget(path: string): void {
        this.regions = this.regions.filter(region => region.path !== path);
    }

    private refresh(region: EditRegion, lines: (from: number, to: number) => string[], lineCount: number): void {
        let from = Math.max(0, region.startLine - AROUND);
        let to = Math.min(lineCount - 1, region.endLine + AROUND);
        if (to - from + 1 > MAX_TEXT_LINES) {
            const middle = Math.floor((region.startLine + region.endLine) / 2);
            from = Math.max(0, middle - MAX_TEXT_LINES / 2);
            to = Math.min(lineCount - 1, from + MAX_TEXT_LINES - 1);
        }
        region.textLine = from;
        region.text = to >= from ? lines(from, to).join('\n') : '';
    }
}
