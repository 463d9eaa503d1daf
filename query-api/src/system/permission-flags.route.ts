import { listPermissionFlags, permissionFlags } from '@cairn/contract';
import { implement } from '@cairn/platform';

export const permissionFlagsRoute = () => implement(listPermissionFlags, async () => ({ status: 200, body: permissionFlags }));
