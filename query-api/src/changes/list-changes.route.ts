import { listChanges } from '@cairn/contract';
import { decodePosition, encodePosition, httpErrors, implement, startOfLog } from '@cairn/platform';
import { deniedProjectIds } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openChangeStream } from './open-change-stream.ts';
import { readChanges } from './read-changes.ts';

/** Issue 28: the change feed, as pages of JSON or as Server-Sent Events (docs/changes.md). */
export const listChangesRoute = (deps: QueryDeps) =>
  implement(listChanges, async ({ query, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const feed = { db: deps.db, eventStore: deps.changes.eventStore };
    const filters = { collectionId: query.collection_id?.toLowerCase(), assetId: query.asset_id?.toLowerCase(), kinds: query.kinds };
    const streams = req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';
    // A reconnecting EventSource sends the last id it saw: it wins over the `after` of its URL.
    const lastEventId = streams ? req.get('Last-Event-ID')?.trim() : undefined;
    const field = lastEventId ? 'Last-Event-ID' : 'after';
    // A consistency token may carry a third part, the commit's WAL position: the log position is its first two.
    const logPart = (text: string) => text.split('.').slice(0, 2).join('.');
    const from = lastEventId ? decodePosition(lastEventId) : query.after ? decodePosition(logPart(query.after)) : startOfLog;
    if (from === null) throw httpErrors.validation({ [field]: ['Must be an id of this feed’s events.'] });
    // A forged position past the log's head would answer empty pages, or hold a stream silent, until the log reached it.
    if (from !== startOfLog && (await feed.eventStore.isBeyondLog(from))) throw httpErrors.validation({ [field]: ['Is past the end of the log: not a position this feed gave.'] });
    const denied = await deniedProjectIds(deps, caller, req);
    if (streams) {
      // Only the credentials: what the authenticator reads again while the stream runs.
      const credentials = { authorization: req.headers.authorization, cookie: req.headers.cookie };
      const credentialsHold = deps.changes.credentialsHold;
      const stillSignedIn = credentialsHold ? () => credentialsHold(credentials) : undefined;
      const body = openChangeStream({ ...feed, hub: deps.changes.hub, logger: deps.changes.logger }, { caller, after: from, filters, deniedProjectIds: denied, stillSignedIn });
      return { status: 200, stream: { body, contentType: 'text/event-stream; charset=utf-8' }, headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } };
    }
    const page = await readChanges(feed, { caller, after: from, limit: query.limit ?? 100, filters, deniedProjectIds: denied });
    return { status: 200, body: { changes: page.changes, next: encodePosition(page.next), has_more: page.hasMore }, headers: { 'Cache-Control': 'no-store' } };
  });
