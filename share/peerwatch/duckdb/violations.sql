-- peerwatch traces in DuckDB: the findings the library made at the call.
--
--   .read share/peerwatch/duckdb/violations.sql
--   SELECT rule, severity, count(*) FROM pw_violations('pw-trace/*.pw.jsonl') GROUP BY ALL;
--
-- One row a "violation" line (docs/trace-format.md).  call: the seq of the
-- call it was found at (NULL for a finding made at exit: a leak); join it
-- with pw_calls on (file, seq).  The findings `peerwatch-analyze check`
-- derives from several processes' traces are not lines of a trace: ask
-- `peerwatch-analyze violations --json` for those.
CREATE OR REPLACE MACRO pw_violations(traces) AS TABLE
SELECT filename AS file, seq, call, tid, t_ns, vendor, api, op, rule, severity, message, stack
FROM read_ndjson(traces, filename = true, ignore_errors = true, format = 'newline_delimited',
     columns = {type: 'VARCHAR', seq: 'UBIGINT', call: 'UBIGINT', tid: 'UBIGINT',
                t_ns: 'UBIGINT', vendor: 'VARCHAR', api: 'VARCHAR', op: 'VARCHAR',
                rule: 'VARCHAR', severity: 'VARCHAR', message: 'VARCHAR', stack: 'VARCHAR[]'})
WHERE type = 'violation';
