-- peerwatch traces in DuckDB: one row a trace file — its process, from
-- the header, and how it ended, from the footer.
--
--   .read share/peerwatch/duckdb/runs.sql
--   SELECT host, pid, rank, events, dropped, reason FROM pw_runs('pw-trace/*.pw.jsonl');
--
-- Members of the header and footer (docs/trace-format.md).  The footer's
-- columns are NULL for a trace without one (a process that died: its file
-- is named .partial).  rank is JSON: an integer, a string or null, as the
-- launcher gave it.  Counted members some other line has with another type
-- ("suppressed" is a call's list of rules) are read as JSON and typed here.
CREATE OR REPLACE MACRO pw_runs(traces) AS TABLE
WITH lines AS (
    SELECT * FROM read_ndjson(traces, filename = true, ignore_errors = true,
        format = 'newline_delimited',
        columns = {type: 'VARCHAR', format: 'VARCHAR', version: 'UBIGINT',
                   peerwatch_version: 'VARCHAR', pid: 'UBIGINT', ppid: 'UBIGINT',
                   host: 'VARCHAR', rank: 'JSON', run_id: 'VARCHAR', argv: 'VARCHAR[]',
                   t0_mono_ns: 'UBIGINT', t0_real_ns: 'UBIGINT', options: 'JSON',
                   vendors: 'JSON', events: 'UBIGINT', dropped: 'UBIGINT',
                   violations: 'UBIGINT', repeats: 'UBIGINT', suppressed: 'JSON',
                   t_end_ns: 'UBIGINT', reason: 'VARCHAR', write_error: 'VARCHAR',
                   report_error: 'VARCHAR'})
    WHERE type IN ('header', 'footer'))
SELECT h.filename AS file, h.host, h.pid, h.ppid, h.rank, h.run_id, h.argv,
       h.peerwatch_version, h.version, h.t0_mono_ns, h.t0_real_ns, h.options, h.vendors,
       f.events, f.dropped, f.violations, f.repeats,
       CAST(f.suppressed AS UBIGINT) AS suppressed, f.t_end_ns, f.reason,
       f.write_error, f.report_error
FROM (SELECT * FROM lines WHERE type = 'header') AS h
LEFT JOIN (SELECT * FROM lines WHERE type = 'footer') AS f USING (filename);
