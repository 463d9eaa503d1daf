import { httpErrors, type RequestContext } from '@cairn/platform';

/** Interface 5: the admin user endpoints are for system administrators only. */
export function requireSystemAdmin(context: RequestContext): void {
  if (!context.caller?.isSystemAdmin) throw httpErrors.forbidden('Only a system administrator may manage users.');
}
