import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { DomainEvent } from '../shared/events.ts';
import { conflict, DomainError, invalid, notFound } from '../shared/errors.ts';

/**
 * A direct upload (stream `upload-<id>`, docs/storage.md "Direct uploads"): the client sends
 * an object's bytes in parts straight to the repository (presigned S3 part URLs, or the
 * service's signed part route on fs); completing it records the object as the asset's
 * content. Its declared size is reserved on the paying allocation while it is open
 * (AllocationReserved), so open uploads can never together promise more than the limit.
 */
export const uploadLimits = {
  /** S3's smallest part (all but the last); the same on fs so that a client needs one rule. */
  minPartSize: 5 * 1024 ** 2,
  defaultPartSize: 8 * 1024 ** 2,
  /** S3's largest part and part count, and so its largest object. */
  maxPartSize: 5 * 1024 ** 3,
  maxParts: 10_000,
  maxSize: 5 * 1024 ** 4,
} as const;

export type UploadPlan = { readonly size: number; readonly partSize: number; readonly partCount: number };

export type UploadStarted = DomainEvent<
  'UploadStarted',
  {
    readonly id: string;
    readonly assetId: string;
    readonly repositoryId: string;
    readonly allocationId: string;
    /** Under the asset's own prefix: the content record made at completion has the upload's id and this key. */
    readonly key: string;
    readonly filename: string;
    readonly contentType: string;
    /** The declared size, reserved on the allocation until the upload ends. */
    readonly size: number;
    /** The SHA-256 the client declared (hex, lower case), checked at completion; null: none. */
    readonly sha256: string | null;
    readonly partSize: number;
    readonly partCount: number;
    /** The repository's own id of the multipart upload (S3's UploadId); null on fs. */
    readonly storageUploadId: string | null;
    readonly expiresAt: string;
  }
>;
export type UploadCompleted = DomainEvent<'UploadCompleted', { readonly id: string; readonly assetId: string; readonly allocationId: string; readonly size: number; readonly sha256: string }>;
export const uploadEndReasons = ['aborted', 'expired', 'size_mismatch', 'checksum_mismatch'] as const;
export type UploadEndReason = (typeof uploadEndReasons)[number];
export type UploadAborted = DomainEvent<'UploadAborted', { readonly id: string; readonly assetId: string; readonly allocationId: string; readonly reason: UploadEndReason }>;

export type UploadEvent = UploadStarted | UploadCompleted | UploadAborted;
export const uploadEventTypes = ['UploadStarted', 'UploadCompleted', 'UploadAborted'] as const satisfies readonly UploadEvent['type'][];

export type UploadState =
  | { readonly status: 'none' }
  | { readonly status: 'open' | 'completed' | 'aborted'; readonly upload: UploadStarted['data'] };

export const uploadErrors = {
  notFound: () => notFound('not_found', 'Upload not found.'),
  invalidSize: () => invalid('invalid_size', `size is a whole number of bytes from 1 to ${uploadLimits.maxSize}.`),
  invalidPartSize: () => invalid('invalid_part_size', `part_size is a whole number of bytes from ${uploadLimits.minPartSize} to ${uploadLimits.maxPartSize}.`),
  tooManyParts: () => invalid('invalid_part_size', `At this part_size the upload has more than ${uploadLimits.maxParts} parts; choose larger parts.`),
  invalidChecksum: () => invalid('invalid_sha256', 'sha256 is 64 hexadecimal digits.'),
  tooManyOpen: (max: number) => conflict('too_many_open_uploads', `The allocation has ${max} uploads open already, the most it may; complete or abort one first.`),
  completed: () => conflict('upload_completed', 'This upload is complete already; its content is recorded.'),
  ended: () => conflict('upload_ended', 'This upload was aborted or expired; start a new one.'),
  expired: () => conflict('upload_expired', 'This upload has expired; start a new one.'),
  missingParts: (missing: readonly number[]) =>
    conflict('upload_incomplete', `Parts ${summarize(missing)} have not arrived; send them, then complete the upload.`),
  sizeMismatch: (declared: number, received: number) =>
    invalid('upload_size_mismatch', `The upload declared ${declared} bytes but ${received} arrived; nothing was recorded and the bytes were removed.`),
  checksumMismatch: () => invalid('upload_checksum_mismatch', 'The SHA-256 of the bytes that arrived is not the declared one; nothing was recorded and the bytes were removed.'),
};

function summarize(parts: readonly number[]): string {
  const shown = parts.slice(0, 10).join(', ');
  return parts.length > 10 ? `${shown} and ${parts.length - 10} more` : shown;
}

/**
 * The parts of an upload: every part `partSize` bytes but the last. Without a requested
 * part size, the default, grown until the object fits in S3's 10,000 parts.
 */
export function planUpload(size: number, requestedPartSize: number | null): UploadPlan {
  if (!Number.isSafeInteger(size) || size < 1 || size > uploadLimits.maxSize) throw uploadErrors.invalidSize();
  let partSize: number;
  if (requestedPartSize === null) {
    const fitting = Math.ceil(size / uploadLimits.maxParts);
    // Whole MiB: parts that are easy to cut and to read in a listing.
    partSize = Math.max(uploadLimits.defaultPartSize, Math.ceil(fitting / 1024 ** 2) * 1024 ** 2);
  } else {
    if (!Number.isSafeInteger(requestedPartSize) || requestedPartSize < uploadLimits.minPartSize || requestedPartSize > uploadLimits.maxPartSize) throw uploadErrors.invalidPartSize();
    partSize = requestedPartSize;
  }
  const partCount = Math.max(1, Math.ceil(size / partSize));
  if (partCount > uploadLimits.maxParts) throw uploadErrors.tooManyParts();
  return { size, partSize, partCount };
}

/** How many bytes part `n` (from 1) of the plan carries: all `partSize` but the last, which carries the rest. */
export function partBytes(plan: Pick<UploadPlan, 'size' | 'partSize' | 'partCount'>, partNumber: number): number {
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > plan.partCount) return 0;
  return partNumber < plan.partCount ? plan.partSize : plan.size - plan.partSize * (plan.partCount - 1);
}

export function checkSha256(value: string): string {
  const hex = value.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw uploadErrors.invalidChecksum();
  return hex;
}

/** The refusal a completed object earns against its upload's declaration; null when it matches. */
export function checkUploadedObject(upload: UploadStarted['data'], received: { readonly size: number; readonly sha256: string }): { reason: UploadEndReason; error: DomainError } | null {
  if (received.size !== upload.size) return { reason: 'size_mismatch', error: uploadErrors.sizeMismatch(upload.size, received.size) };
  if (upload.sha256 !== null && received.sha256 !== upload.sha256) return { reason: 'checksum_mismatch', error: uploadErrors.checksumMismatch() };
  return null;
}

export type StartUpload = { readonly type: 'StartUpload' } & UploadStarted['data'];
/** `received`: what the repository holds once the parts are assembled, measured there. */
export type CompleteUpload = { readonly type: 'CompleteUpload'; readonly received: { readonly size: number; readonly sha256: string } };
/** `aborted`: the client's DELETE; `expired`: the clean-up job; a mismatch: a refused completion. */
export type AbortUpload = { readonly type: 'AbortUpload'; readonly reason: UploadEndReason };
export type UploadCommand = StartUpload | CompleteUpload | AbortUpload;

// Both are `toISOString()` texts (UTC, milliseconds, `Z`), which order as the instants they name.
export const isExpired = (upload: UploadStarted['data'], now: string) => now >= upload.expiresAt;

export function decideUpload(command: UploadCommand, state: UploadState, context: CommandContext): readonly UploadEvent[] {
  switch (command.type) {
    case 'StartUpload': {
      if (state.status !== 'none') throw conflict('already_exists', 'This upload exists already.');
      const { type: _type, ...data } = command;
      return [{ type: 'UploadStarted', data }];
    }
    case 'CompleteUpload': {
      const upload = openUpload(state);
      if (isExpired(upload, context.now)) throw uploadErrors.expired();
      // A mismatch is refused by the route after it ends the upload (checkUploadedObject).
      if (checkUploadedObject(upload, command.received)) throw new Error('a mismatched object cannot complete its upload');
      return [{ type: 'UploadCompleted', data: { id: upload.id, assetId: upload.assetId, allocationId: upload.allocationId, size: command.received.size, sha256: command.received.sha256 } }];
    }
    case 'AbortUpload': {
      if (state.status === 'none') throw uploadErrors.notFound();
      // Ending twice (a DELETE racing the expiry job) is a no-op; only a client learns that it came too late.
      if (state.status === 'aborted') return [];
      if (state.status === 'completed') {
        if (command.reason === 'expired') return [];
        throw uploadErrors.completed();
      }
      const { id, assetId, allocationId } = state.upload;
      return [{ type: 'UploadAborted', data: { id, assetId, allocationId, reason: command.reason } }];
    }
    default:
      return assertNever(command);
  }
}

/** The upload, when it is still open; the refusal for one that is not. */
export function openUpload(state: UploadState): UploadStarted['data'] {
  switch (state.status) {
    case 'none':
      throw uploadErrors.notFound();
    case 'completed':
      throw uploadErrors.completed();
    case 'aborted':
      throw uploadErrors.ended();
    case 'open':
      return state.upload;
    default:
      return assertNever(state);
  }
}

export function evolveUpload(state: UploadState, event: UploadEvent): UploadState {
  switch (event.type) {
    case 'UploadStarted':
      return { status: 'open', upload: event.data };
    case 'UploadCompleted':
      return state.status === 'none' ? state : { status: 'completed', upload: state.upload };
    case 'UploadAborted':
      return state.status === 'none' ? state : { status: 'aborted', upload: state.upload };
    default:
      return assertNever(event);
  }
}

export const uploadDecider: Decider<UploadCommand, UploadEvent, UploadState> = {
  initialState: { status: 'none' },
  evolve: evolveUpload,
  decide: decideUpload,
};

export const uploadStream = (id: string) => `upload-${id}`;

export const isUploadError = (error: unknown, code: string) => error instanceof DomainError && error.code === code;
