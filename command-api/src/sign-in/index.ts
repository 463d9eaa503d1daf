export { interactionRoutes } from './interaction.routes.ts';
export { signOutRoute } from './sign-out.route.ts';
export { recordSignIn } from './record-sign-in.ts';
export type { SignInDeps } from './sign-in.deps.ts';
export { upstreamRoutes } from './upstream.routes.ts';
export { createUpstreamProvider, type UpstreamProvider } from './upstream.ts';
