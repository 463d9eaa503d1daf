import type pg from 'pg';

type PlanNode = {
  readonly 'Node Type': string;
  readonly 'Parent Relationship'?: string;
  readonly 'Subplan Name'?: string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Alias'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Actual Total Time'?: number;
  readonly 'Index Cond'?: string;
  readonly 'Recheck Cond'?: string;
  readonly 'Filter'?: string;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly 'Heap Fetches'?: number;
  readonly 'Sort Method'?: string;
  readonly 'Shared Hit Blocks'?: number;
  readonly 'Shared Read Blocks'?: number;
  readonly 'Plans'?: readonly PlanNode[];
};

type Explained = { readonly Plan: PlanNode; readonly 'Planning Time': number; readonly 'Execution Time': number };

export type ExplainSummary = {
  readonly executionMs: number;
  readonly planningMs: number;
  readonly sharedHit: number;
  readonly sharedRead: number;
  /** Scan nodes as `Index Scan(assets_order)`, `Bitmap Index Scan(assets_metadata)`, `Seq Scan(assets)`. */
  readonly scans: readonly string[];
  /** The plan as indented lines: node, relation or index, actual rows × loops, time, conditions (shortened). */
  readonly lines: readonly string[];
};

const short = (text: string | undefined, max = 110) => (text === undefined ? '' : text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` of one statement with its parameters, summarized. */
export async function explainSummary(pool: pg.Pool, text: string, values: readonly unknown[]): Promise<ExplainSummary> {
  const { rows } = await pool.query<{ 'QUERY PLAN': Explained[] }>(`explain (analyze, buffers, format json) ${text}`, [...values]);
  const explained = rows[0]?.['QUERY PLAN'][0];
  if (!explained) throw new Error('EXPLAIN returned no plan');
  const lines: string[] = [];
  const scans: string[] = [];
  const walk = (node: PlanNode, depth: number) => {
    const type = node['Node Type'];
    const target = node['Index Name'] ? `${node['Index Name']} on ${node['Relation Name'] ?? '?'}` : (node['Relation Name'] ?? '');
    if (/Scan/.test(type) && (node['Index Name'] ?? node['Relation Name'])) scans.push(`${type}(${node['Index Name'] ?? node['Relation Name'] ?? ''})`);
    const loops = node['Actual Loops'] ?? 1;
    const facts = [
      `rows ${node['Actual Rows'] ?? 0}${loops > 1 ? ` ×${loops}` : ''}`,
      `${(node['Actual Total Time'] ?? 0).toFixed(2)} ms`,
      node['Rows Removed by Filter'] ? `removed by filter ${node['Rows Removed by Filter']}${loops > 1 ? ` ×${loops}` : ''}` : '',
      node['Rows Removed by Index Recheck'] ? `removed by recheck ${node['Rows Removed by Index Recheck']}` : '',
      node['Heap Fetches'] !== undefined ? `heap fetches ${node['Heap Fetches']}` : '',
      node['Sort Method'] ? `sort ${node['Sort Method']}` : '',
    ].filter((f) => f !== '');
    const condition = node['Index Cond'] ?? node['Recheck Cond'];
    const label = `${node['Subplan Name'] ? `[${node['Subplan Name']}] ` : ''}${type}${target ? ` ${target}` : ''}`;
    lines.push(`${'  '.repeat(depth)}${label}  (${facts.join(', ')})`);
    if (condition) lines.push(`${'  '.repeat(depth + 2)}cond: ${short(condition)}`);
    if (node['Filter']) lines.push(`${'  '.repeat(depth + 2)}filter: ${short(node['Filter'])}`);
    for (const child of node['Plans'] ?? []) walk(child, depth + 1);
  };
  walk(explained.Plan, 0);
  return {
    executionMs: explained['Execution Time'],
    planningMs: explained['Planning Time'],
    sharedHit: explained.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: explained.Plan['Shared Read Blocks'] ?? 0,
    scans,
    lines,
  };
}
