-- peerwatch traces in DuckDB: the devices each process saw, and their peers.
--
--   .read share/peerwatch/duckdb/devices.sql
--   SELECT * FROM pw_devices('pw-trace/*.pw.jsonl');
--   SELECT * FROM pw_device_peers('pw-trace/*.pw.jsonl') WHERE can_access = 0;
--
-- pw_devices: one row a "device" line (docs/trace-format.md).
-- pw_device_peers: one row a pair, a device and one of its peers, as the
-- line's "peers" says it (can_access NULL where it could not be asked).
CREATE OR REPLACE MACRO pw_devices(traces) AS TABLE
SELECT filename AS file, vendor, ordinal, count, uuid, bus_id, name, physical_id,
       nvswitch_links, peers
FROM read_ndjson(traces, filename = true, ignore_errors = true, format = 'newline_delimited',
     columns = {type: 'VARCHAR', vendor: 'VARCHAR', ordinal: 'UBIGINT', count: 'UBIGINT',
                uuid: 'VARCHAR', bus_id: 'VARCHAR', name: 'VARCHAR', physical_id: 'UBIGINT',
                nvswitch_links: 'BIGINT', peers: 'JSON'})
WHERE type = 'device';

CREATE OR REPLACE MACRO pw_device_peers(traces) AS TABLE
SELECT d.file, d.vendor, d.ordinal,
       CAST(p.value->>'ordinal' AS UBIGINT) AS peer,
       CAST(p.value->>'can_access' AS BIGINT) AS can_access,
       p.value->>'link' AS link,
       CAST(p.value->>'nvlinks' AS BIGINT) AS nvlinks,
       p.value->>'topology' AS topology,
       p.value->>'p2p_read' AS p2p_read
FROM pw_devices(traces) AS d, json_each(d.peers) AS p;
