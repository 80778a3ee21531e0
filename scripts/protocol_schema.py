#!/usr/bin/env python3
"""Merges the protocols' schema fragments (protocols/<id>/schema.json) into the config schema
(configs/schema/ftsim.schema.json, its $defs/protocol), so that adding a protocol is adding a folder.

    scripts/protocol_schema.py --check   exit 1 if the config schema is not up to date (a test runs this)
    scripts/protocol_schema.py --write   rewrite $defs/protocol in place (the rest of the file is kept as written)

A fragment is the JSON Schema of the protocol's /protocol block without its "type": an object with a
"description" (one line), "properties" and, optionally, "required", "allOf" or "oneOf". Its "$ref"s may
name the config schema's $defs (e.g. "#/$defs/positiveDuration").
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "configs" / "schema" / "ftsim.schema.json"
FRAGMENT_KEYS = {"description", "properties", "required", "allOf", "oneOf"}


def fragments():
    found = {}
    for path in sorted((ROOT / "protocols").glob("*/schema.json")):
        fragment = json.loads(path.read_text(encoding="utf-8"))
        unknown = set(fragment) - FRAGMENT_KEYS
        if unknown or "description" not in fragment:
            sys.exit(f"{path.relative_to(ROOT)}: a fragment has a description and only {sorted(FRAGMENT_KEYS)}; "
                     f"unknown: {sorted(unknown)}")
        if not (path.parent / "module.cpp").exists():
            sys.exit(f"{path.relative_to(ROOT)}: no module.cpp beside it")
        found[path.parent.name] = fragment
    return found


def protocol_definition():
    parts = fragments()
    branches = []
    for protocol_id, fragment in parts.items():
        then = {"properties": {"type": {"const": protocol_id}, **fragment.get("properties", {})},
                "additionalProperties": False}
        for key in ("required", "allOf", "oneOf"):
            if key in fragment:
                then[key] = fragment[key]
        branches.append({"if": {"required": ["type"], "properties": {"type": {"const": protocol_id}}}, "then": then})
    return {
        "description": "The fault-tolerance protocol of ftsim run, one per folder of protocols/ (this definition is "
                       "generated from protocols/*/schema.json by scripts/protocol_schema.py). Default (absent): none.",
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": list(parts),
                                "description": "; ".join(f"{k}: {v['description']}" for k, v in parts.items())}},
        "allOf": branches,
    }


def span_of_definition(text, name):
    """The character span of `"name": {...}` directly under "$defs" (found by its 4-space indent)."""
    key = f'\n    "{name}": '
    start = text.index(key) + 5  # at the name's quote, after the indent
    i = text.index("{", start)
    depth, in_string, escaped = 0, False, False
    for j in range(i, len(text)):
        c = text[j]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return start, j + 1
    raise ValueError(f"unbalanced $defs/{name}")


def rendered():
    text = SCHEMA.read_text(encoding="utf-8")
    start, end = span_of_definition(text, "protocol")
    body = json.dumps(protocol_definition(), indent=2, ensure_ascii=False).replace("\n", "\n    ")
    return text[:start] + '"protocol": ' + body + text[end:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true")
    group.add_argument("--write", action="store_true")
    args = parser.parse_args()
    new = rendered()
    json.loads(new)  # still one JSON document
    if args.write:
        SCHEMA.write_text(new, encoding="utf-8")
        return 0
    if new != SCHEMA.read_text(encoding="utf-8"):
        print(f"{SCHEMA.relative_to(ROOT)} is not up to date with protocols/*/schema.json: "
              "run scripts/protocol_schema.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
