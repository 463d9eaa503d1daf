import type { UserId } from '../shared/ids.ts';

export type RegisterUser = {
  readonly type: 'RegisterUser';
  readonly id: UserId;
  readonly email: string;
  readonly name: string;
  readonly isSystemAdmin: boolean;
};

export type ReserveUserEmail = {
  readonly type: 'ReserveUserEmail';
  readonly email: string;
  readonly userId: UserId;
};
