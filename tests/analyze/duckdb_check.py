#!/usr/bin/env python3
"""The DuckDB views (share/peerwatch/duckdb/) against the trace format's JSON
Schema and against `peerwatch-analyze summary` on the same traces.

    duckdb_check.py SCHEMA VIEWS_JSON SUMMARY_JSON

VIEWS_JSON is what tests/analyze/duckdb_views.mjs printed.  Every column of
every view must be a member of its line type in the schema, of a DuckDB
type that holds the member's JSON types; the per-API calls, failures and
host time from pw_calls, the library's findings in pw_violations and the
processes of pw_runs must be summary's; the views must have found rows.
One line per problem, exit 1 when there is any."""
import json
import sys

# The line type (a $defs entry) of each view; columns that are not members:
# "file" (the trace file's path), "peer" (device.peers[].ordinal).
VIEWS = {
    "pw_calls": ["call"],
    "pw_violations": ["violation"],
    "pw_devices": ["device"],
    "pw_device_peers": ["device.peers[]", "device"],
    "pw_runs": ["header", "footer"],
}
RENAMED = {("pw_device_peers", "peer"): ("device.peers[]", "ordinal")}


def json_types(prop, defs):
    """The JSON types a schema property allows."""
    out = set()
    if "const" in prop:
        out.add({str: "string", bool: "boolean", int: "integer"}.get(type(prop["const"]), "null"))
    t = prop.get("type")
    if isinstance(t, str):
        out.add(t)
    elif isinstance(t, list):
        out.update(t)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in prop.get(key, []):
            out |= json_types(sub, defs)
    if "$ref" in prop:
        out |= json_types(defs[prop["$ref"].split("/")[-1]], defs)
    return out


def holds(duck, types):
    """Whether a DuckDB column type holds a member of these JSON types."""
    if duck in ("UBIGINT", "BIGINT", "INTEGER"):
        return "integer" in types and types <= {"integer", "null"}
    if duck == "BOOLEAN":
        return types <= {"boolean", "null"}
    if duck.endswith("[]"):
        return "array" in types
    if duck == "VARCHAR":  # a string, or JSON (DuckDB's JSON is a VARCHAR)
        return bool(types)
    return False


def main():
    schema, views, summary = (json.load(open(p)) for p in sys.argv[1:4])
    defs = schema["$defs"]
    problems = []
    for view, lines in VIEWS.items():
        cols = views["columns"].get(view)
        if not cols:
            problems.append(f"{view}: no columns (the view is missing)")
            continue
        if not views["rows"].get(view):
            problems.append(f"{view}: no rows on the traces")
        for name, duck in cols:
            if name == "file":
                continue
            line, member = RENAMED.get((view, name), (None, name))
            found = [ln for ln in ([line] if line else lines) if member in defs[ln]["properties"]]
            if not found:
                problems.append(f"{view}.{name}: no member \"{member}\" of {' or '.join(lines)} in the schema")
                continue
            types = json_types(defs[found[0]]["properties"][member], defs)
            if not holds(duck, types):
                problems.append(f"{view}.{name}: {duck} does not hold {found[0]}.{member}'s {sorted(types)}")
    want = {c["api"]: {"count": c["count"], "errors": c["errors"], "total": str(c["host_ns"]["total"])}
            for c in summary["calls"]}
    got = views["calls"]
    for api in sorted(set(want) | set(got)):
        if want.get(api) != got.get(api):
            problems.append(f"pw_calls: {api}: summary says {want.get(api)}, DuckDB {got.get(api)}")
    if views["rows"].get("pw_violations") != summary["violations_total"]:
        problems.append(f"pw_violations: {views['rows'].get('pw_violations')} rows, "
                        f"summary counts {summary['violations_total']} findings of the library")
    # every process summary counts is a row of pw_runs, with its host and pid;
    # pw_runs may have more: a header the analyzer refused (DuckDB does not
    # validate; the suite's traces include damaged ones)
    runs = {f: (h, p) for f, h, p in views["runs"]}
    for proc in summary["per_process"]:
        got = runs.get(proc["file"])
        if got != (proc["host"], proc["pid"]):
            problems.append(f"pw_runs: {proc['file']}: summary says {proc['host']} pid {proc['pid']}, "
                            f"DuckDB {got}")
    if len(summary["per_process"]) != summary["processes"]:
        problems.append(f"summary lists {len(summary['per_process'])} processes, counts {summary['processes']}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
