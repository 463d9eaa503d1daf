import { Readable } from 'node:stream';
import type { OperationResult } from '@cairn/platform';
import { listCollections, viewerFacts, type CollectionListFilter, type CollectionPosition, type CollectionViewer, type ReadDb, type ViewerFacts } from '@cairn/projections';

/** Rows read per statement: what the service holds of an answer at once, however many collections there are. */
export const collectionStreamPage = 200;

type Row = Awaited<ReturnType<typeof listCollections>>[number];

const json = (rows: readonly Row[]) => rows.map((row) => row.json).join(',');
const positionOf = (row: Row): CollectionPosition => ({ createdAt: row.position, id: row.id });

/**
 * DECISIONS.md 8: every collection the viewer sees, as one JSON array (docs/collections.md,
 * "The whole listing"). An answer that fits in one page is an ordinary body, so the read
 * cache keeps it; a longer one streams, a page of rows at a time, each read by keyset
 * after the last only when the client has taken the previous one. No connection is held
 * between pages: a slow reader costs memory for one page and no pooled connection. The
 * stream's owner (sendStream) destroys it on client abort and on error, which ends the
 * generator before its next read.
 */
export async function everyCollection(db: ReadDb, viewer: CollectionViewer, filter: CollectionListFilter, pageSize = collectionStreamPage, given?: ViewerFacts): Promise<OperationResult> {
  // One set of principals for every page: the answer never mixes two views of the caller.
  // Kept ones are checked by the first page's statement (kept-facts.ts); the later pages take them as checked then.
  const facts = given ?? (await viewerFacts(db, viewer.userId));
  const commonSize = { commonSize: pageSize === collectionStreamPage };
  const first = await listCollections(db, viewer, filter, null, pageSize + 1, facts, commonSize);
  if (first.length <= pageSize) return { status: 200, rawJson: `[${json(first)}]` };

  async function* pages(): AsyncGenerator<string> {
    let rows = first;
    yield '[';
    for (let index = 0; ; index += 1) {
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      yield `${index === 0 ? '' : ','}${json(page)}`;
      if (rows.length <= pageSize || last === undefined) break;
      rows = await listCollections(db, viewer, filter, positionOf(last), pageSize + 1, { p: facts.p }, commonSize);
      if (rows.length === 0) break;
    }
    yield ']';
  }
  return { status: 200, stream: { body: Readable.from(pages(), { objectMode: false }), contentType: 'application/json; charset=utf-8' } };
}
