#!/usr/bin/env python3
"""Validates what `peerwatch-analyze check|violations --format sarif|junit` writes.

    ci_validate.py sarif FILE    SARIF 2.1.0: the properties the OASIS standard
                                 (sarif-schema-2.1.0.json) requires, allows and
                                 types, for every object kind peerwatch writes,
                                 and what GitHub code scanning needs on top (a
                                 location with a non-empty uri on every result, a
                                 rule for every ruleId/ruleIndex)
    ci_validate.py junit FILE    JUnit XML: well-formed, <testsuites> of
                                 <testsuite> of <testcase>, each with its
                                 required attributes, and the counts of every
                                 suite and of the whole equal to what it holds

Prints one line per problem and exits 1 when there is any; 0 and "valid"
otherwise.  Written from the SARIF 2.1.0 standard's object definitions (the
property names of each object, which the schema closes with
additionalProperties: false) and the JUnit XML layout CI systems read.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

problems = []


def bad(path, what):
    problems.append(f"{path}: {what}")


# ---- SARIF 2.1.0 --------------------------------------------------------------
# kind -> (allowed properties, required properties, {property: child kind})
# A child kind in [brackets] is an array of that kind; "{kind}" a map of it.
SARIF = {
    "sarifLog": (
        {"$schema", "version", "runs", "inlineExternalProperties", "properties"},
        {"version", "runs"},
        {"runs": "[run]", "properties": "propertyBag"},
    ),
    "run": (
        {"tool", "invocations", "conversion", "language", "versionControlProvenance",
         "originalUriBaseIds", "artifacts", "logicalLocations", "graphs", "results",
         "automationDetails", "runAggregates", "baselineGuid", "redactionTokens",
         "defaultEncoding", "defaultSourceLanguage", "newlineSequences", "columnKind",
         "externalPropertyFileReferences", "threadFlowLocations", "taxonomies", "addresses",
         "translations", "policies", "webRequests", "webResponses", "specialLocations",
         "properties"},
        {"tool"},
        {"tool": "tool", "invocations": "[invocation]", "results": "[result]",
         "originalUriBaseIds": "{artifactLocation}", "properties": "propertyBag"},
    ),
    "tool": ({"driver", "extensions", "properties"}, {"driver"},
             {"driver": "toolComponent", "properties": "propertyBag"}),
    "toolComponent": (
        {"guid", "name", "organization", "product", "productSuite", "shortDescription",
         "fullDescription", "fullName", "version", "semanticVersion", "dottedQuadFileVersion",
         "releaseDateUtc", "downloadUri", "informationUri", "globalMessageStrings",
         "notifications", "rules", "taxa", "locations", "language", "contents",
         "isComprehensive", "localizedDataSemanticVersion",
         "minimumRequiredLocalizedDataSemanticVersion", "associatedComponent",
         "translationMetadata", "supportedTaxonomies", "properties"},
        {"name"},
        {"rules": "[reportingDescriptor]", "shortDescription": "multiformatMessageString",
         "fullDescription": "multiformatMessageString", "properties": "propertyBag"},
    ),
    "reportingDescriptor": (
        {"id", "deprecatedIds", "guid", "deprecatedGuids", "name", "deprecatedNames",
         "shortDescription", "fullDescription", "messageStrings", "defaultConfiguration",
         "helpUri", "help", "relationships", "properties"},
        {"id"},
        {"shortDescription": "multiformatMessageString",
         "fullDescription": "multiformatMessageString", "help": "multiformatMessageString",
         "defaultConfiguration": "reportingConfiguration", "properties": "propertyBag"},
    ),
    "multiformatMessageString": ({"text", "markdown", "properties"}, {"text"}, {}),
    "reportingConfiguration": ({"enabled", "level", "rank", "parameters", "properties"}, set(),
                               {"properties": "propertyBag"}),
    "invocation": (
        {"commandLine", "arguments", "responseFiles", "startTimeUtc", "endTimeUtc", "exitCode",
         "ruleConfigurationOverrides", "notificationConfigurationOverrides",
         "toolExecutionNotifications", "toolConfigurationNotifications",
         "exitCodeDescription", "exitSignalName", "exitSignalNumber",
         "processStartFailureMessage", "executionSuccessful", "machine", "account",
         "processId", "executableLocation", "workingDirectory", "environmentVariables",
         "stdin", "stdout", "stderr", "stdoutStderr", "properties"},
        {"executionSuccessful"},
        {"toolExecutionNotifications": "[notification]", "properties": "propertyBag"},
    ),
    "notification": (
        {"locations", "message", "level", "threadId", "timeUtc", "exception", "descriptor",
         "associatedRule", "properties"},
        {"message"},
        {"locations": "[location]", "message": "message",
         "descriptor": "reportingDescriptorReference", "properties": "propertyBag"},
    ),
    "reportingDescriptorReference": ({"id", "index", "guid", "toolComponent", "properties"},
                                     set(), {}),
    "result": (
        {"ruleId", "ruleIndex", "rule", "kind", "level", "message", "analysisTarget",
         "locations", "guid", "correlationGuid", "occurrenceCount", "partialFingerprints",
         "fingerprints", "stacks", "codeFlows", "graphs", "graphTraversals",
         "relatedLocations", "suppressions", "baselineState", "rank", "attachments",
         "hostedViewerUri", "workItemUris", "provenance", "fixes", "taxa", "webRequest",
         "webResponse", "properties"},
        {"message"},
        {"message": "message", "locations": "[location]", "stacks": "[stack]",
         "properties": "propertyBag"},
    ),
    "message": ({"text", "markdown", "id", "arguments", "properties"}, set(), {}),
    "location": ({"id", "physicalLocation", "logicalLocations", "message", "annotations",
                  "relationships", "properties"}, set(),
                 {"physicalLocation": "physicalLocation", "logicalLocations": "[logicalLocation]",
                  "message": "message", "properties": "propertyBag"}),
    "physicalLocation": ({"address", "artifactLocation", "region", "contextRegion", "properties"},
                         set(), {"address": "address", "artifactLocation": "artifactLocation",
                                 "region": "region", "properties": "propertyBag"}),
    "artifactLocation": ({"uri", "uriBaseId", "index", "description", "properties"}, set(), {}),
    "region": ({"startLine", "startColumn", "endLine", "endColumn", "charOffset", "charLength",
                "byteOffset", "byteLength", "snippet", "message", "sourceLanguage", "properties"},
               set(), {}),
    "address": ({"absoluteAddress", "relativeAddress", "length", "kind", "name",
                 "fullyQualifiedName", "offsetFromParent", "index", "parentIndex", "properties"},
                set(), {}),
    "logicalLocation": ({"name", "index", "fullyQualifiedName", "decoratedName", "parentIndex",
                         "kind", "properties"}, set(), {}),
    "stack": ({"message", "frames", "properties"}, {"frames"},
              {"message": "message", "frames": "[stackFrame]"}),
    "stackFrame": ({"location", "module", "threadId", "parameters", "properties"}, set(),
                   {"location": "location"}),
}
LEVELS = {"none", "note", "warning", "error"}
STRINGS = {"id", "name", "text", "markdown", "uri", "uriBaseId", "ruleId", "version", "module",
           "kind", "fullName", "semanticVersion", "$schema"}
URI_REF = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?[A-Za-z0-9\-._~/%!$&'()*+,;=:@]*$")


def check_sarif_object(v, kind, path):
    if kind == "propertyBag":
        if not isinstance(v, dict):
            return bad(path, "a property bag must be an object")
        tags = v.get("tags")
        if tags is not None and (not isinstance(tags, list) or len(set(tags)) != len(tags)
                                 or not all(isinstance(t, str) for t in tags)):
            bad(path + ".tags", "must be an array of distinct strings")
        return
    if not isinstance(v, dict):
        return bad(path, f"a {kind} must be an object")
    allowed, required, children = SARIF[kind]
    for k in required - v.keys():
        bad(path, f"{kind} lacks its required property '{k}'")
    for k in v.keys() - allowed:
        bad(path, f"'{k}' is not a property of {kind}")
    for k, x in v.items():
        p = f"{path}.{k}"
        if k in STRINGS and not isinstance(x, str):
            bad(p, "must be a string")
        if k == "level" and x not in LEVELS:
            bad(p, f"'{x}' is not a level")
        if k == "startLine" and (not isinstance(x, int) or isinstance(x, bool) or x < 1):
            bad(p, "must be an integer of at least 1")
        if k in ("ruleIndex", "absoluteAddress", "index") and (
                not isinstance(x, int) or isinstance(x, bool) or x < -1):
            bad(p, "must be an integer of at least -1")
        if k == "executionSuccessful" and not isinstance(x, bool):
            bad(p, "must be a boolean")
        if k == "uri" and not URI_REF.match(x or ""):
            bad(p, f"'{x}' is not a URI reference")
        child = children.get(k)
        if not child:
            continue
        if child.startswith("["):
            if not isinstance(x, list):
                bad(p, "must be an array")
                continue
            for i, e in enumerate(x):
                check_sarif_object(e, child[1:-1], f"{p}[{i}]")
        elif child.startswith("{"):
            if not isinstance(x, dict):
                bad(p, "must be an object")
                continue
            for name, e in x.items():
                check_sarif_object(e, child[1:-1], f"{p}.{name}")
        else:
            check_sarif_object(x, child, p)
    if kind == "message" and "text" not in v and "id" not in v:
        bad(path, "a message needs text or id")
    if kind == "physicalLocation" and "address" not in v and "artifactLocation" not in v:
        bad(path, "a physicalLocation needs an address or an artifactLocation")
    if kind == "artifactLocation" and "uriBaseId" in v and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", v.get("uri", "")):
        bad(path, "a uriBaseId goes only with a relative uri")


def validate_sarif(doc):
    if doc.get("version") != "2.1.0":
        bad("$.version", "must be 2.1.0")
    check_sarif_object(doc, "sarifLog", "$")
    for r, run in enumerate(doc.get("runs", [])):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        ids = [x.get("id") for x in rules]
        if len(set(ids)) != len(ids):
            bad(f"$.runs[{r}].tool.driver.rules", "rule ids repeat")
        bases = run.get("originalUriBaseIds", {})
        for i, res in enumerate(run.get("results", [])):
            p = f"$.runs[{r}].results[{i}]"
            rid, idx = res.get("ruleId"), res.get("ruleIndex")
            if rid not in ids:
                bad(p, f"ruleId '{rid}' is not among the driver's rules")
            elif idx is not None and (idx >= len(ids) or ids[idx] != rid):
                bad(p, f"ruleIndex {idx} does not point at rule '{rid}'")
            locs = res.get("locations") or []
            if not locs:
                bad(p, "code scanning needs at least one location")
            for j, loc in enumerate(locs):
                uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
                if not uri:
                    bad(f"{p}.locations[{j}]", "code scanning needs physicalLocation.artifactLocation.uri")
                base = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uriBaseId")
                if base and base not in bases:
                    bad(f"{p}.locations[{j}]", f"uriBaseId '{base}' is not in originalUriBaseIds")
        for name, b in bases.items():
            if not b.get("uri", "").endswith("/"):
                bad(f"$.runs[{r}].originalUriBaseIds.{name}", "a base uri must end with '/'")


# ---- JUnit XML ------------------------------------------------------------------

def count(node, tag):
    return sum(1 for tc in node.iter("testcase") for c in tc if c.tag == tag)


def validate_junit(root):
    if root.tag != "testsuites":
        return bad("/", f"the root element is <{root.tag}>, not <testsuites>")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for s, suite in enumerate(root):
        p = f"/testsuites/testsuite[{s + 1}]"
        if suite.tag != "testsuite":
            bad(p, f"<{suite.tag}> where a <testsuite> belongs")
            continue
        for a in ("name", "tests", "failures", "errors"):
            if a not in suite.attrib:
                bad(p, f"lacks the attribute {a}")
        cases = [c for c in suite if c.tag == "testcase"]
        for c in suite:
            if c.tag not in ("testcase", "properties", "system-out", "system-err"):
                bad(p, f"<{c.tag}> inside a <testsuite>")
        got = {"tests": len(cases), "failures": count(suite, "failure"), "errors": count(suite, "error")}
        for k, n in got.items():
            if suite.attrib.get(k, "").isdigit() and int(suite.attrib[k]) != n:
                bad(p, f"{k}=\"{suite.attrib[k]}\" but it holds {n}")
            totals[k] += n
        for i, tc in enumerate(cases):
            q = f"{p}/testcase[{i + 1}]"
            for a in ("name", "classname"):
                if not tc.attrib.get(a):
                    bad(q, f"lacks the attribute {a}")
            if "line" in tc.attrib and not tc.attrib["line"].isdigit():
                bad(q, "line must be a number")
            for c in tc:
                if c.tag not in ("failure", "error", "skipped", "system-out", "system-err"):
                    bad(q, f"<{c.tag}> inside a <testcase>")
                if c.tag in ("failure", "error") and "message" not in c.attrib:
                    bad(q, f"<{c.tag}> lacks its message")
    for k, n in totals.items():
        if root.attrib.get(k, "").isdigit() and int(root.attrib[k]) != n:
            bad("/testsuites", f"{k}=\"{root.attrib[k]}\" but the suites hold {n}")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("sarif", "junit"):
        sys.exit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    try:
        if kind == "sarif":
            with open(path, encoding="utf-8") as f:
                validate_sarif(json.load(f))
        else:
            validate_junit(ET.parse(path).getroot())
    except (ValueError, ET.ParseError, OSError) as e:
        bad(path, f"not readable as {kind}: {e}")
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("valid")


if __name__ == "__main__":
    main()
