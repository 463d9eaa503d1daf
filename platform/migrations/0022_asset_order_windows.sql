-- A filtered asset listing reads the listing's order one window at a time
-- (projections/src/assets/order-windows.ts), its windows cut from the histogram PostgreSQL
-- keeps of the creation times: a finer histogram (1,000 slices, about 0.1 % of the assets
-- each) makes windows that fit a page's needs more closely.
alter table assets alter column created_at set statistics 1000;
