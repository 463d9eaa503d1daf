import { afterAll, beforeAll, describe } from 'vitest';
import { expectedVersionContract } from './contract/expected-version.contract.ts';
import { idempotencyContract } from './contract/idempotency.contract.ts';
import { readAllContract } from './contract/read-all.contract.ts';
import { readStreamContract } from './contract/read-stream.contract.ts';
import type { ContractSubject } from './contract/support.ts';
import { upcastingContract } from './contract/upcasting.contract.ts';

export type { ContractSubject, RawEventRow } from './contract/support.ts';

/** The behaviour every EventStore implementation owes, run against the subject `open` returns. */
export function eventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(name, () => {
    let subject: ContractSubject;

    beforeAll(async () => {
      subject = await open();
    });

    afterAll(async () => {
      await subject?.close();
    });

    const current = (): ContractSubject => subject;
    expectedVersionContract(current);
    idempotencyContract(current);
    readStreamContract(current);
    readAllContract(current);
    upcastingContract(current);
  });
}
