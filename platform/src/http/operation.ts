import type { Readable } from 'node:stream';
import type { Request } from 'express';
import type { z } from 'zod';
import type { GlobalPosition } from '../event-store/event-store.ts';
import type { ResponseHeaderName } from './response-headers.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type Caller = {
  readonly userId: string;
  readonly email: string;
  readonly isSystemAdmin: boolean;
  readonly scopes: ReadonlySet<string>;
  /** How the caller signed in: a bearer token, or the web session cookie. */
  readonly via: 'bearer' | 'session';
};

type AnyObject = z.ZodObject;

/** The error statuses of DECISIONS.md 1 an operation may answer (and 412, 422 for the headers that ask for them). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 423 | 429 | 503;

/**
 * One operation of the HTTP interface: everything a client can observe about it. The
 * command and query services implement contracts; the OpenAPI document, the 405
 * answers and the scope rules are all derived from the same list.
 */
export type OperationContract<Q extends AnyObject | undefined = AnyObject | undefined, B extends AnyObject | undefined = AnyObject | undefined> = {
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** Which service serves it: reads go to the query side, writes to the command side. */
  readonly side: 'command' | 'query';
  readonly authenticated: boolean;
  readonly query?: Q;
  readonly body?: B;
  readonly bodyRequired?: boolean;
  /**
   * A multipart body is not parsed: the handler streams it (`req.bodyFormat === 'stream'`),
   * e.g. content uploads, whose size has its own limit. JSON and form bodies parse as usual.
   */
  readonly streamsMultipart?: boolean;
  /**
   * The body is raw bytes the handler streams itself (a direct upload's part), never parsed;
   * its credential is a signature in the query, so it is outside the anonymous budget and
   * its 16 KiB bound (docs/storage.md "Direct uploads").
   */
  readonly rawBody?: { readonly description: string };
  /** Success answers; `headers`: those the handler sets that are not derived (documented-answers.ts). */
  readonly responses: Readonly<
    Record<
      number,
      {
        readonly description: string;
        readonly schema?: z.ZodType;
        readonly headers?: readonly ResponseHeaderName[];
        /** Another media type the same answer may come as, chosen by the request's Accept (the change feed's events). */
        readonly stream?: { readonly contentType: string; readonly description: string };
      }
    >
  >;
  /**
   * Error statuses the handler answers beyond those derived from the contract's shape
   * (documented-answers.ts): e.g. 423 on a locked asset, 429 on a costly read.
   */
  readonly errors?: readonly ErrorStatus[];
  /**
   * `false` where the handler appends no event (sign-out ends sessions in their own
   * tables): without a decision there is no guard to refuse and no race to lose, so no 409
   * is derived unless an Idempotency-Key can still be running (documented-answers.ts).
   */
  readonly appendsEvents?: false;
  /** Read models the operation reads, waited for when a consistency token is sent. */
  readonly readModels: readonly string[];
};

export type RequestContext = {
  readonly requestId: string;
  readonly correlationId: string;
  readonly caller: Caller | null;
  readonly now: string;
  /** Set when the request carries an Idempotency-Key (docs/idempotency.md). */
  readonly idempotency?: IdempotentRequest | undefined;
};

/**
 * A request made under an Idempotency-Key. New ids are derived from the key, so a retry
 * names the same resources; `committed` holds the events an earlier attempt of the same
 * request already stored, by stream: the retry reuses them instead of deciding again.
 */
export type IdempotentRequest = {
  /** `<user>:<key>`, as stored in the events' metadata. */
  readonly key: string;
  readonly committed: ReadonlyMap<string, { readonly events: readonly { readonly type: string; readonly data: unknown }[]; readonly position: GlobalPosition }>;
  /** How many ids the request has made so far. */
  idsMade: number;
};

export type HandlerInput<C extends OperationContract> = {
  readonly params: Readonly<Record<string, string>>;
  readonly query: NonNullable<C['query']> extends AnyObject ? z.output<NonNullable<C['query']>> : Record<string, never>;
  readonly body: NonNullable<C['body']> extends AnyObject ? z.output<NonNullable<C['body']>> : Record<string, never>;
  readonly context: RequestContext;
  readonly req: Request;
};

export type OperationResult = {
  readonly status: number;
  readonly body?: unknown;
  /** A body already serialized as JSON (built by PostgreSQL): sent as it is. */
  readonly rawJson?: string;
  /** The same, already encoded as UTF-8 (an answer kept to be sent many times). */
  readonly rawJsonBytes?: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Bytes sent as they are (a download), instead of a JSON body. */
  readonly stream?: { readonly body: Readable; readonly contentType: string };
  /** Set by writes: answered as X-Consistency-Token. */
  readonly position?: GlobalPosition | null;
  /**
   * What a streamed body was (the operation's `digestStream` of it), set by operations that
   * stream their body: kept with an Idempotency-Key's answer, so that a retry with another
   * body is told apart (docs/idempotency.md).
   */
  readonly streamDigest?: string;
};

export type OperationHandler<C extends OperationContract = OperationContract> = (input: HandlerInput<C>) => Promise<OperationResult>;

/** Reads a streamed body through, without keeping it, to the digest its handler reports as `streamDigest`. */
export type StreamDigester = (req: Request) => Promise<string>;

export type BoundOperation = { readonly contract: OperationContract; readonly handler: OperationHandler; readonly digestStream?: StreamDigester | undefined };

/** Pairs a contract with its handler and keeps the handler's input types tied to it. */
export function implement<C extends OperationContract>(contract: C, handler: OperationHandler<C>, options: { digestStream?: StreamDigester } = {}): BoundOperation {
  // The mounting code parses query and body with the contract's own schemas, so the input is a HandlerInput<C>.
  return { contract, handler: (input) => handler(input as HandlerInput<C>), digestStream: options.digestStream };
}

export function defineContract<Q extends AnyObject | undefined = undefined, B extends AnyObject | undefined = undefined>(
  contract: OperationContract<Q, B>,
): OperationContract<Q, B> {
  return contract;
}

export function requiredScope(contract: OperationContract): 'read' | 'write' {
  return contract.side === 'query' ? 'read' : 'write';
}
