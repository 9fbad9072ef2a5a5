/** Whether a process of this machine with this pid is running (EPERM: it runs, as another user). Another machine's pid means nothing here. */
export function processAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
}
