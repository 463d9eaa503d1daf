import { describe, expect, it } from 'vitest';
import { givenFor } from '../shared/decider-spec.ts';
import { decideReservation, decideUploadCharge, decideCharge, type AllocationSnapshot } from './allocation.ts';
import { checkUploadedObject, partBytes, planUpload, uploadDecider, uploadLimits, type StartUpload, type UploadEvent } from './upload.ts';

const now = '2026-01-01T00:00:00.000Z';
const context = { actor: { userId: 'u1', isSystemAdmin: false }, now };
const given = givenFor(uploadDecider, context);
const MiB = 1024 ** 2;

const start: StartUpload = {
  type: 'StartUpload',
  id: 'up1',
  assetId: 'a1',
  repositoryId: 'r1',
  allocationId: 'al1',
  key: 'assets/a1/up1',
  filename: 'data.bin',
  contentType: 'application/octet-stream',
  size: 20 * MiB,
  sha256: null,
  partSize: 8 * MiB,
  partCount: 3,
  storageUploadId: null,
  expiresAt: '2026-01-02T00:00:00.000Z',
};
const { type: _type, ...startedData } = start;
const started: UploadEvent = { type: 'UploadStarted', data: startedData };
const ids = { id: 'up1', assetId: 'a1', allocationId: 'al1' };

describe('the upload decider', () => {
  it('starts once', () => {
    expect(given([]).when(start)).toEqual({ events: [started], code: null });
    expect(given([started]).when(start).code).toBe('already_exists');
  });

  it('completes an open upload whose object matches, not after its expiry, and only once', () => {
    const received = { size: 20 * MiB, sha256: 'f'.repeat(64) };
    expect(given([started]).when({ type: 'CompleteUpload', received }).events).toEqual([{ type: 'UploadCompleted', data: { ...ids, ...received } }]);
    expect(given([started]).when({ type: 'CompleteUpload', received }, { ...context, now: start.expiresAt }).code).toBe('upload_expired');
    const completed: UploadEvent = { type: 'UploadCompleted', data: { ...ids, ...received } };
    expect(given([started, completed]).when({ type: 'CompleteUpload', received }).code).toBe('upload_completed');
    expect(given([]).when({ type: 'CompleteUpload', received }).code).toBe('not_found');
  });

  it('aborts an open upload; ending it again is a no-op, a completed one is kept', () => {
    const aborted: UploadEvent = { type: 'UploadAborted', data: { ...ids, reason: 'aborted' } };
    expect(given([started]).when({ type: 'AbortUpload', reason: 'aborted' }).events).toEqual([aborted]);
    expect(given([started, aborted]).when({ type: 'AbortUpload', reason: 'expired' })).toEqual({ events: [], code: null });
    const completed: UploadEvent = { type: 'UploadCompleted', data: { ...ids, size: 1, sha256: 'x' } };
    expect(given([started, completed]).when({ type: 'AbortUpload', reason: 'expired' })).toEqual({ events: [], code: null });
    expect(given([started, completed]).when({ type: 'AbortUpload', reason: 'aborted' }).code).toBe('upload_completed');
  });

  it('refuses an object of another size or checksum', () => {
    expect(checkUploadedObject(startedData, { size: 20 * MiB - 1, sha256: 'a' })?.reason).toBe('size_mismatch');
    expect(checkUploadedObject({ ...startedData, sha256: 'b'.repeat(64) }, { size: 20 * MiB, sha256: 'c'.repeat(64) })?.reason).toBe('checksum_mismatch');
    expect(checkUploadedObject({ ...startedData, sha256: 'b'.repeat(64) }, { size: 20 * MiB, sha256: 'b'.repeat(64) })).toBeNull();
  });
});

describe('the plan of parts', () => {
  it('cuts 8 MiB parts by default, the last one carrying the rest', () => {
    const plan = planUpload(20 * MiB, null);
    expect(plan).toEqual({ size: 20 * MiB, partSize: 8 * MiB, partCount: 3 });
    expect([1, 2, 3, 4].map((n) => partBytes(plan, n))).toEqual([8 * MiB, 8 * MiB, 4 * MiB, 0]);
  });

  it('grows the default to fit 10,000 parts, and refuses sizes S3 could not take', () => {
    const big = planUpload(200 * 1024 ** 3, null);
    expect(big.partCount).toBeLessThanOrEqual(uploadLimits.maxParts);
    expect(() => planUpload(0, null)).toThrow();
    expect(() => planUpload(10 * MiB, 4 * MiB)).toThrow();
    expect(() => planUpload(uploadLimits.maxSize, 5 * MiB)).toThrow();
  });
});

describe('reservations', () => {
  const allocation: AllocationSnapshot = { id: 'al1', ownerType: 'user', ownerId: 'u1', repositoryId: 'r1', limitBytes: 100, usedBytes: 30, reservedBytes: 40, contentCount: 1 };

  it('count as used for every charge and reservation', () => {
    expect(decideReservation(allocation, 'up2', 30).data.bytes).toBe(30);
    expect(() => decideReservation(allocation, 'up2', 31)).toThrow(expect.objectContaining({ code: 'allocation_exceeded' }));
    expect(() => decideCharge(allocation, 'c1', 31)).toThrow(expect.objectContaining({ code: 'allocation_exceeded' }));
  });

  it('turn into the charge at completion, even after the limit was lowered', () => {
    const [released, charged] = decideUploadCharge({ ...allocation, limitBytes: 50 }, 'up1', 40, 'up1', 40);
    expect(released).toEqual({ type: 'AllocationReleased', data: { id: 'al1', uploadId: 'up1', bytes: 40 } });
    expect(charged).toEqual({ type: 'AllocationCharged', data: { id: 'al1', contentId: 'up1', bytes: 40 } });
  });
});
