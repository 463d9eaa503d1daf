import type { countrySetSchema, groupSchema, projectSchema } from '@cairn/contract';
import type { z } from 'zod';
import type { Harness } from './harness.ts';

/** A caller the harness made, with a token. */
export type User = Awaited<ReturnType<Harness['createUser']>>;

export const bearer = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Response bodies as the contract describes them, so that the tests cannot drift from it.
export type Group = z.output<typeof groupSchema>;
export type Project = z.output<typeof projectSchema>;
export type CountrySet = z.output<typeof countrySetSchema>;
