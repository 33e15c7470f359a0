// The question `peerwatch-analyze summary` answers first — per API: calls,
// failed calls, total host time — asked of DuckDB over the same trace files
// (bench/analyze_bench.sh copies this file beside its node_modules).
//
//   node duckdb_summary.mjs THREADS FILE...
//
// Prints {"api": {"count": N, "errors": N, "total": N}, ...}, the shape the
// benchmark compares with summary's and jq's.
import { DuckDBInstance } from '@duckdb/node-api';

const [threads, ...files] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await db.connect();
const list = files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ');
const result = await con.runAndReadAll(`
  SELECT api, count(*) AS count, count(*) FILTER (WHERE ret <> 0) AS errors, sum(dur_ns) AS total
  FROM read_ndjson([${list}],
                   columns = {type: 'VARCHAR', api: 'VARCHAR', ret: 'BIGINT', dur_ns: 'BIGINT'})
  WHERE type = 'call'
  GROUP BY api`);
const out = {};
for (const row of result.getRowObjects())
  out[row.api] = { count: Number(row.count), errors: Number(row.errors), total: Number(row.total) };
console.log(JSON.stringify(out));
