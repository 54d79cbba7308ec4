/**
 * True when a process other than this one has `pid` (EPERM: it exists but belongs to another
 * user). This process's own pid is false: whether a file of that pid is this process's own is
 * for the caller to know; otherwise an earlier process with the same pid left it (stockd is
 * PID 1 in a container after every restart).
 */
export function isOtherProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
