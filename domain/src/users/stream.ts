import { normalizeEmail } from './decide.ts';

export const userStream = (id: string) => `user-${id}`;
export const userEmailStream = (email: string) => `user_email-${normalizeEmail(email)}`;
