// The DuckDB views of share/peerwatch/duckdb/ on a set of traces, for
// tests/analyze/checks_duckdb.sh: each macro's columns with their types and
// its row count, and the per-API question of `summary` answered from
// pw_calls as summary answers it: every call line counted, host time summed
// over the calls that carry their own (not parent_time); and pw_runs' file,
// host and pid of each trace.
//
//   node duckdb_views.mjs SQL_DIR TRACE_FILE...
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [dir, ...files] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
for (const f of readdirSync(dir).filter((n) => n.endsWith('.sql')).sort())
  await con.run(readFileSync(join(dir, f), 'utf8'));
const list = '[' + files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ') + ']';
const out = { columns: {}, rows: {}, calls: {}, runs: [] };
for (const m of ['pw_calls', 'pw_violations', 'pw_devices', 'pw_device_peers', 'pw_runs']) {
  const r = await con.runAndReadAll(`SELECT * FROM ${m}(${list})`);
  out.columns[m] = r.columnNames().map((n, i) => [n, r.columnTypes()[i].toString()]);
  out.rows[m] = r.currentRowCount;
}
const r = await con.runAndReadAll(`
  SELECT api, count(*) AS count, count(*) FILTER (WHERE ret <> 0) AS errors,
         CAST(coalesce(sum(dur_ns) FILTER (WHERE NOT parent_time), 0) AS VARCHAR) AS total
  FROM pw_calls(${list}) GROUP BY api`);
for (const row of r.getRowObjects())
  out.calls[row.api] = { count: Number(row.count), errors: Number(row.errors), total: String(row.total) };
const runs = await con.runAndReadAll(`SELECT file, host, CAST(pid AS VARCHAR) AS pid FROM pw_runs(${list})`);
for (const row of runs.getRowObjects()) out.runs.push([row.file, row.host, Number(row.pid)]);
console.log(JSON.stringify(out));
