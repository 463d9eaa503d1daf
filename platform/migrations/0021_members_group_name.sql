-- An organization's members group may be renamed by hand (DECISIONS §8, docs/groups.md):
-- from then on its name is the one given, and renaming the organization leaves it alone.
-- No group was renamed by hand before, so every existing row still follows its organization.
alter table groups add column name_given boolean not null default false;
