import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces and parentheses): state, ppid, … */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 1/100 s); null where it cannot be read. */
export function cpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : null;
}

/**
 * CPU seconds used so far by a PostgreSQL server: its postmaster's own, what its ended
 * children used (counted into the postmaster once it reaps them: backends that closed,
 * parallel workers), and each live child's. Null where /proc cannot be read.
 */
export function serverCpuSeconds(postmasterPid: number): number | null {
  const own = statFields(postmasterPid);
  if (!own) return null;
  let sum = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) / 100;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === postmasterPid) sum += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return sum;
}

export type CpuShares = { readonly service: number | null; readonly postgres: number | null; readonly bench: number };

const since = (before: number | null, after: number | null) => (before === null || after === null ? null : after - before);

/**
 * The CPU seconds the service (its pid), the PostgreSQL server (its postmaster's pid) and
 * this process used while `run` ran: on a machine where all three share the cores, what
 * each request costs each of them. The service's figure includes its own background work
 * (the projector, in an all-in-one process).
 */
export async function withCpu<T>(servicePid: number, postmasterPid: number | null, run: () => Promise<T>): Promise<{ result: T; cpu: CpuShares }> {
  const service = cpuSeconds(servicePid);
  const postgres = postmasterPid === null ? null : serverCpuSeconds(postmasterPid);
  const own = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(own);
  return {
    result,
    cpu: { service: since(service, cpuSeconds(servicePid)), postgres: since(postgres, postmasterPid === null ? null : serverCpuSeconds(postmasterPid)), bench: (used.user + used.system) / 1e6 },
  };
}

/** The postmaster of the server a connection's backend (`select pg_backend_pid()`) runs under, when that server is on this machine. */
export function postmasterOf(backendPid: number): number | null {
  const fields = statFields(backendPid);
  return fields ? Number(fields[1]) : null;
}
