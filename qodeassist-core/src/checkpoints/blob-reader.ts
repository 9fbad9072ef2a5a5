import { ShadowGit } from './shadow-git';
import { CheckpointGitError } from './shadow-git';

/** Reads blobs of the shadow repository, many per git process (`cat-file --batch`). */
export class BlobReader {
    constructor(private readonly git: ShadowGit) {}

    /** The bytes of each blob id; an id the repository lacks is an error. */
    async read(oids: readonly string[]): Promise<Map<string, Buffer>> {
        const wanted = [...new Set(oids)];
        const blobs = new Map<string, Buffer>();
        if (wanted.length === 0) {
            return blobs;
        }
        const out = await this.git.run(['cat-file', '--batch'], { input: `${wanted.join('\n')}\n` });
        let at = 0;
        for (const oid of wanted) {
            const lineEnd = out.indexOf(0x0a, at);
            const header = out.subarray(at, lineEnd).toString('utf8').split(' ');
            if (header[1] === 'missing' || header.length < 3) {
                throw new CheckpointGitError(`The checkpoint's file ${oid} is missing from the shadow repository; the checkpoint cannot be read.`);
            }
            const size = Number(header[2]);
            blobs.set(oid, out.subarray(lineEnd + 1, lineEnd + 1 + size));
            at = lineEnd + 1 + size + 1;
        }
        return blobs;
    }
}
