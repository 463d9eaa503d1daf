import type { GroupId } from './events.ts';

export const groupStream = (id: GroupId | string) => `group-${id}`;
