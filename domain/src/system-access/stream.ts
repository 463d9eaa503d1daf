/** One stream for the whole system: the guard needs every user's access in one history. */
export const systemAccessStream = 'system_access';
