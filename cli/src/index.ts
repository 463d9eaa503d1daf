export { main } from './main.ts';
export { openResources, type Resources } from './runtime/resources.ts';
export { createApp } from './server/create-app.ts';
export { serve, type Role } from './server/serve.ts';
export { usersCreate } from './commands/users.command.ts';
export { orgsCreate, orgsAddMember } from './commands/orgs.command.ts';
export { tokensIssue } from './commands/tokens.command.ts';
export { clientsCreate } from './commands/clients.command.ts';
export { projectionsList, projectionsRebuild, projectionsStatus, projectionsResume } from './commands/projections.command.ts';
