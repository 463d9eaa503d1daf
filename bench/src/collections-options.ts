import path from 'node:path';
import { countArgument, textArgument } from './cli-arguments.ts';

/** The options of `npm run bench -- collections` (collections.bench.ts). */
export type Options = {
  assets: number;
  collections: number;
  reseed: boolean;
  seconds: number | null;
  page: number;
  moves: number;
  verify: readonly string[];
  cache: 'on' | 'off';
  /** Measure only the requests whose label matches. */
  only: RegExp | null;
  /** Where to write each request's captured statements as JSON, to time them one by one. */
  dumpSql: string | null;
  /** Where the service writes its CPU profile. */
  cpuProf: string | null;
};

export function parseOptions(args: readonly string[]): Options {
  const options: Options = { assets: 1_000_000, collections: 0, reseed: false, seconds: null, page: 10_000, moves: 4, verify: [], cache: 'on', only: null, dumpSql: null, cpuProf: null };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => countArgument(args, (i += 1), arg);
    if (arg === '--reseed') options.reseed = true;
    else if (arg === '--cache') {
      i += 1;
      options.cache = args[i] === 'off' ? 'off' : 'on';
    }
    else if (arg === '--only' || arg === '--dump-sql' || arg === '--cpu-prof') {
      const v = textArgument(args, (i += 1), arg);
      if (arg === '--only') options.only = new RegExp(v);
      else if (arg === '--dump-sql') options.dumpSql = v;
      else options.cpuProf = path.resolve(v);
    } else if (arg === '--verify') options.verify = ['collections', 'assets'];
    else if (arg?.startsWith('--verify=')) options.verify = arg.slice('--verify='.length).split(',');
    else if (arg === '--assets') options.assets = value();
    else if (arg === '--collections') options.collections = value();
    else if (arg === '--seconds') options.seconds = value();
    else if (arg === '--page') options.page = value();
    else if (arg === '--moves') options.moves = value();
    else throw new Error(`unknown option ${arg}; options: --assets N, --collections N, --reseed, --seconds S, --page P, --moves N, --verify[=collections,assets], --cache on|off, --only PATTERN, --dump-sql FILE, --cpu-prof DIR`);
  }
  if (options.collections === 0) options.collections = Math.max(100, Math.round(options.assets / 100));
  if (!Number.isInteger(options.assets) || options.assets < 1000) throw new Error('--assets needs a whole number of at least 1000');
  if (!Number.isInteger(options.collections) || options.collections < 100) throw new Error('--collections needs a whole number of at least 100');
  return options;
}
