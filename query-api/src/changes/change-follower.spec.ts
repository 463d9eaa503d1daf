import { describe, expect, it } from 'vitest';
import { ChangeFollower, maxFollowerBacklogBytes } from './change-follower.ts';

describe('ChangeFollower', () => {
  it('cuts the stream of a client that stopped reading once its backlog passes the bound, and gives its slot back once', async () => {
    let ended = 0;
    const follower = new ChangeFollower({ userId: 'u', reader: { isSystemAdmin: false, principals: [] }, filters: {}, position: { major: 1n, minor: 0n }, onEnd: () => (ended += 1) });
    const frame = `: ${'x'.repeat(64 * 1024)}\n\n`;
    for (let n = 0; n * frame.length <= maxFollowerBacklogBytes + frame.length; n += 1) follower.send(frame);
    await new Promise((resolve) => setImmediate(resolve));
    expect(follower.isEnded).toBe(true);
    // Destroyed, not ended: nothing of the backlog waits for a reader that may never come.
    expect(follower.body.destroyed).toBe(true);
    expect(ended).toBe(1);
    follower.send(frame);
    follower.end();
    expect(ended).toBe(1);
  });
});
