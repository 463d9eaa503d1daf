export const organizationStream = (id: string) => `organization-${id}`;
