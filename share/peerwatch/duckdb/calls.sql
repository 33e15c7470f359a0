-- peerwatch traces in DuckDB: the calls.
--
--   .read share/peerwatch/duckdb/calls.sql
--   SELECT api, count(*) FROM pw_calls('pw-trace/*.pw.jsonl') GROUP BY api;
--
-- One row a "call" line (docs/trace-format.md), typed as the trace format's
-- table types it: unsigned members UBIGINT, device ordinals INTEGER, the
-- call's arguments as JSON (args->>'bytes', json_extract(args, '$.copies')).
-- file: the trace file, which pw_runs ties to its process.  Lines that are
-- not JSON (the cut last line of a .partial trace) are skipped: validate
-- with `peerwatch-analyze info`.  A member some line of another type has
-- with another type ("suppressed": a footer's count) is read as JSON and
-- typed here.
CREATE OR REPLACE MACRO pw_calls(traces) AS TABLE
SELECT filename AS file, seq, tid, vendor, layer, api, variant, family, op, t_ns, dur_ns, ret,
       ret_name, parent, coalesce(parent_time, false) AS parent_time, cur_dev,
       coalesce(implicit, false) AS implicit,
       CAST(suppressed AS VARCHAR[]) AS suppressed, stack, args
FROM read_ndjson(traces, filename = true, ignore_errors = true, format = 'newline_delimited',
     columns = {type: 'VARCHAR', seq: 'UBIGINT', tid: 'UBIGINT', vendor: 'VARCHAR',
                layer: 'VARCHAR', api: 'VARCHAR', variant: 'VARCHAR', family: 'VARCHAR',
                op: 'VARCHAR', t_ns: 'UBIGINT', dur_ns: 'UBIGINT', ret: 'BIGINT',
                ret_name: 'VARCHAR', parent: 'UBIGINT', parent_time: 'BOOLEAN',
                cur_dev: 'INTEGER', implicit: 'BOOLEAN', suppressed: 'JSON',
                stack: 'VARCHAR[]', args: 'JSON'})
WHERE type = 'call';
