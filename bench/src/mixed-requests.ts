/**
 * The requests of `npm run bench -- mixed`: every listing shape and the query, with values
 * drawn from the seed's vocabularies (asset-data.ts), and cursor pages that follow the
 * answers a session got earlier. One session per client, one caller per session.
 */
import { adjectives, instruments, pick, recordTypes, seededRandom, skewed, tagVocabulary, topics, type Random } from './asset-data.ts';

/** What a session reads of an answer: the body only when it asked for it (`wantsBody`). */
export type MixedReply = { readonly status: number; readonly headers: Readonly<Record<string, string | string[] | undefined>>; readonly body: string | null };

export type MixedRequest = { readonly shape: string; readonly method: 'GET' | 'POST'; readonly path: string; readonly body?: string | undefined };

/** What the draws pick from besides the fixed vocabularies: ids found on the seeded data. */
export type MixedData = { readonly owners: readonly string[]; readonly collections: readonly string[] };

export type Caller = { readonly label: string; readonly id: string; readonly token: string };

/** The shapes and their weights (per cent of the requests). */
const shapes: readonly (readonly [string, number])[] = [
  ['first page', 18],
  ['cursor page', 20],
  ['metadata', 8],
  ['tags', 8],
  ['record_type', 6],
  ['owner_id', 6],
  ['collection_id', 6],
  ['title_prefix', 6],
  ['q', 6],
  ['query (index-served)', 4],
  ['query (post-filtered)', 4],
  ['read by id', 8],
];

export const shapeNames: readonly string[] = shapes.map(([name]) => name);

const limit = 100;
const list = (params: string) => `/api/assets/?limit=${limit}${params}`;
const query = (where: unknown) => ({ method: 'POST' as const, path: `/api/assets/query/?limit=${limit}`, body: JSON.stringify({ where }) });

/** A page a session may ask the next page of: the request that got it and the cursor it handed out. */
type Continuation = { readonly request: MixedRequest; readonly cursor: string };

export type MixedSession = {
  readonly caller: Caller;
  next(): MixedRequest;
  /**
   * Whether the next answer's body is wanted for the ids it lists: one in eight, or while
   * few are known, so that the load loop does not decode and scan every 90 KB page.
   */
  wantsBody(): boolean;
  /** Remembers what an answer offers to follow: its next cursor, the ids it listed. */
  record(request: MixedRequest, reply: MixedReply): void;
};

export function mixedSession(caller: Caller, data: MixedData, seed: number): MixedSession {
  const random = seededRandom(seed);
  // Which answers are scanned for ids, and which ids are kept: a stream of its own, so that the requests drawn do not depend on it.
  const idRandom = seededRandom(seed + 7_919);
  const continuations: Continuation[] = [];
  const seenIds: string[] = [];

  const draw = (r: Random): string => {
    let x = r() * 100;
    for (const [name, weight] of shapes) {
      if (x < weight) return name;
      x -= weight;
    }
    return 'first page';
  };

  const build = (shape: string): MixedRequest => {
    switch (shape) {
      case 'cursor page': {
        const from = continuations.length === 0 ? null : continuations.splice(Math.floor(random() * continuations.length), 1)[0];
        if (!from) return build('first page');
        const joiner = from.request.path.includes('?') ? '&' : '?';
        return { ...from.request, shape, path: `${from.request.path}${joiner}cursor=${encodeURIComponent(from.cursor)}` };
      }
      case 'metadata': {
        // Mostly the instrument (80 values, ~1 % each), sometimes a key's presence.
        const entry = random() < 0.8 ? `instrument:${pick(random, instruments)}` : pick(random, ['license:CC0-1.0', 'format:netcdf', 'language:fi', 'location.site:harbour', 'reviewed']);
        return { shape, method: 'GET', path: list(`&metadata=${encodeURIComponent(entry)}`) };
      }
      case 'tags': {
        // As the seed draws them (the first tags are common); now and then two at once.
        const tags = new Set([skewed(random, tagVocabulary, 2)]);
        if (random() < 0.25) tags.add(skewed(random, tagVocabulary, 2));
        return { shape, method: 'GET', path: list(`&tags=${encodeURIComponent([...tags].join(','))}`) };
      }
      case 'record_type':
        return { shape, method: 'GET', path: list(`&record_type=${pick(random, recordTypes)[0]}`) };
      case 'owner_id':
        // Half the time the caller's own assets, else an owner's of the seed (skewed as the seed's ownership).
        return { shape, method: 'GET', path: list(`&owner_id=${random() < 0.5 ? caller.id : skewed(random, data.owners, 1.5)}`) };
      case 'collection_id':
        return data.collections.length === 0 ? build('first page') : { shape, method: 'GET', path: list(`&collection_id=${pick(random, data.collections)}`) };
      case 'title_prefix': {
        const topic = skewed(random, topics, 1.5);
        const prefix = `${pick(random, adjectives)} ${topic.slice(0, 1 + Math.floor(random() * topic.length))}`.toLowerCase();
        return { shape, method: 'GET', path: list(`&title_prefix=${encodeURIComponent(prefix)}`) };
      }
      case 'q': {
        const topic = pick(random, topics).replace(/ /g, '');
        const start = Math.floor(random() * Math.max(1, topic.length - 4));
        return { shape, method: 'GET', path: list(`&q=${encodeURIComponent(topic.slice(start, start + 4 + Math.floor(random() * 3)))}`) };
      }
      case 'query (index-served)':
        return {
          shape,
          ...query({ and: [{ field: 'tags', op: 'contains', value: skewed(random, tagVocabulary, 2) }, { field: 'record_type', op: 'in', value: [pick(random, recordTypes)[0], pick(random, recordTypes)[0]] }] }),
        };
      case 'query (post-filtered)':
        return { shape, ...query({ and: [{ field: 'record_type', op: 'eq', value: pick(random, recordTypes)[0] }, { field: 'metadata.size', op: 'gt', value: Math.floor(random() * 1000) }] }) };
      case 'read by id': {
        const id = seenIds.length === 0 ? null : pick(random, seenIds);
        return id === null ? build('first page') : { shape, method: 'GET', path: `/api/assets/${id}/` };
      }
      default:
        return { shape: 'first page', method: 'GET', path: list('') };
    }
  };

  return {
    caller,
    next: () => build(draw(random)),
    wantsBody: () => seenIds.length < 20 || idRandom() < 0.125,
    record(request, reply) {
      const cursor = reply.headers['x-next-cursor'];
      // The request without its own cursor: the next page is the same request from the new one.
      const base = { ...request, path: request.path.replace(/[&?]cursor=[^&]*/, '') };
      if (reply.status === 200 && typeof cursor === 'string' && cursor.length > 0) {
        continuations.push({ request: base, cursor });
        if (continuations.length > 8) continuations.shift();
      }
      if (reply.status === 200 && reply.body?.startsWith('[')) {
        for (const m of reply.body.matchAll(/"id"\s*:\s*"([0-9a-f-]{36})"\s*,\s*"title"/g)) {
          if (idRandom() < 0.05) seenIds.push(m[1] ?? '');
        }
        if (seenIds.length > 200) seenIds.splice(0, seenIds.length - 200);
      }
    },
  };
}
