#!/usr/bin/env python3
"""CUDA's sentences, word for word: each CUDA quote a rule cites
(`peerwatch-analyze rules --json`) must stand in the CUDA toolkit's own
headers (cuda.h, cuda_runtime_api.h, driver_types.h: the text NVIDIA's
reference pages are made from), once the headers' doxygen markup is read
as the pages render it.  A quote may join pieces of one passage with
" ... "; each piece must be there.  HIP's and ACL's quotes are from their
reference pages, whose text is not in a header here: not checked.

    tests/integration/quotes.py RULES_JSON CUDA_INCLUDE_DIR

Prints "ok - ..." / "not ok - ..." per CUDA quote, then
"quotes: N passed, N failed"; exit status 1 if one failed.
"""
import json
import os
import re
import sys


def norm(t):
    t = re.sub(r"^\s*\*+\s*-\s+", " ", t, flags=re.M)  # list items: the page's bullets
    t = re.sub(r"^\s*\*+\s?", " ", t, flags=re.M)  # comment leaders
    t = re.sub(r"[\\@](?:p|ref|c|b|e|a|em|brief|note|returns?|param(?:\[[a-z, ]*\])?)\b", " ", t)
    t = re.sub(r"</?[a-zA-Z][^<>\n]{0,40}>", " ", t)  # html tags, one line at most
    t = t.replace("::", "")  # doxygen's link marker: ::cuMemFree
    t = re.sub(r"[`'\"]", "", t)
    return re.sub(r"\s+", " ", t).strip().lower()


def main():
    rules = json.load(open(sys.argv[1]))
    inc = sys.argv[2]
    text = " ".join(
        norm(open(os.path.join(inc, h), errors="replace").read())
        for h in ("cuda.h", "cuda_runtime_api.h", "driver_types.h")
        if os.path.exists(os.path.join(inc, h)))
    passed = failed = 0
    for r in rules["rules"]:
        for c in r["contract"]:
            if c["vendor"] != "cuda":
                continue
            pieces = [p for p in re.split(r"\s*\.\.\.\s*", c["quote"]) if p.strip()]
            missing = [p for p in pieces if norm(p) not in text]
            name = "%s (CUDA, %s)" % (r["id"], c["document"])
            if missing:
                failed += 1
                print("not ok - %s: not in the CUDA headers: \"%s\"" % (name, missing[0]))
            else:
                passed += 1
                print("ok - %s: the quote is NVIDIA's, word for word" % name)
    print("quotes: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
