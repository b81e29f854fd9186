-- Issue 18 item 5 (ingest throughput): rollup rows are updated many times while their bucket is
-- open (every batch merges into its 15-minute, hour and day rows). With free room on each page
-- (fillfactor 70) PostgreSQL keeps an updated row on its page and skips the index insert (a HOT
-- update); on full pages (the default 100) every merge wrote a new index entry too. Measured on
-- PGlite: 5–8 % more messages per CPU-second of storeBatch (docs/architecture.md "Telemetry
-- store"). Pages written from now on get the room; existing ones keep theirs until rewritten.
ALTER TABLE "telemetry_rollup" SET (fillfactor = 70);
