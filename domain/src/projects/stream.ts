import type { ProjectId } from './events.ts';

export const projectStream = (id: ProjectId | string) => `project-${id}`;
