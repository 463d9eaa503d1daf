import { comparePositions, type EventStore } from '@cairn/platform';

/**
 * Waits until every event appended so far can be read from the log: readers take only
 * events of transactions older than the oldest one still running anywhere in the cluster
 * (docs/event-store.md), and other tests' long statements (a database copied from a
 * template) hold that back for a while.
 */
export async function logSettled(eventStore: EventStore, timeoutMs = 60_000): Promise<void> {
  const head = await eventStore.headPosition();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await eventStore.readLog(head, 1);
    if (page.events.length > 0 || comparePositions(page.through, head) > 0) return;
    if (Date.now() > deadline) throw new Error('the log did not settle in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
