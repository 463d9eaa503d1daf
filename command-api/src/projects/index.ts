import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { addProjectMemberRoute } from './add-project-member.route.ts';
import { createProjectRoute } from './create-project.route.ts';
import { deleteProjectRoute } from './delete-project.route.ts';
import { removeProjectMemberRoute } from './remove-project-member.route.ts';
import { starProjectRoute, unstarProjectRoute } from './star-project.route.ts';
import { updateProjectMemberRoute } from './update-project-member.route.ts';
import { updateProjectRoute } from './update-project.route.ts';

export function projectCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [
    createProjectRoute(deps),
    updateProjectRoute(deps),
    deleteProjectRoute(deps),
    addProjectMemberRoute(deps),
    updateProjectMemberRoute(deps),
    removeProjectMemberRoute(deps),
    starProjectRoute(deps),
    unstarProjectRoute(deps),
  ];
}
