-- A title prefix or a `q` substring walks the listing's order (-created_at, id) from the
-- cursor and checks the text on index entries alone (docs/assets.md "Filters with an
-- ordered index walk it"), instead of gathering every match of the trigram or prefix index
-- and sorting them.
--
-- A prefix of n characters walks the index whose key is the largest N <= n first
-- lowercased characters of the title, then the order; the title is included, so the rest
-- of the prefix is checked without the table. N of 3, 6 and 10: 3 is the shortest prefix
-- that narrows (a letter or two holds a 26th of the titles or more, and keeps the prefix
-- index of migration 0011); at 1,000,000 assets of the benchmark's titles (an adjective,
-- a topic) a key of 3 characters holds about 25,000 assets, of 6 about 1,000 and of 10
-- about 370, so a longer prefix checks few entries that do not match. More sizes would
-- cost every write another index entry of the title.
create index assets_title_prefix_walk_3 on assets (left(lower(title), 3), created_at desc, id) include (title);
create index assets_title_prefix_walk_6 on assets (left(lower(title), 6), created_at desc, id) include (title);
create index assets_title_prefix_walk_10 on assets (left(lower(title), 10), created_at desc, id) include (title);
-- `q` has no key to follow: a bounded walk of the order itself, the title and alias
-- checked on the entries (the trigram indexes still serve the windows when matches are rare).
create index assets_order_text on assets (created_at desc, id) include (title, alias);
