import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 1/100 s); 0 where there is no /proc. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by each process named `postgres` on this machine (the server and its backends), by pid, as cpuSeconds reads them. */
export function postgresCpuByPid(): Map<number, number> {
  const used = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return used;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres') used.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return used;
}

/** What PostgreSQL's processes used between two readings: a backend started since counts whole, one that ended since is lost. */
function postgresCpuSince(before: ReadonlyMap<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of postgresCpuByPid()) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

export type CpuShares = { readonly service: number; readonly postgres: number; readonly bench: number };

/**
 * The CPU seconds the service (its pid), PostgreSQL and this process used while `run` ran:
 * on a machine where all three share the cores, what each request costs each of them.
 */
export async function withCpu<T>(servicePid: number, run: () => Promise<T>): Promise<{ result: T; cpu: CpuShares }> {
  const service = cpuSeconds(servicePid);
  const postgres = postgresCpuByPid();
  const own = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(own);
  return { result, cpu: { service: cpuSeconds(servicePid) - service, postgres: postgresCpuSince(postgres), bench: (used.user + used.system) / 1e6 } };
}
