#!/usr/bin/env python3
"""Writes the generated key tables of docs/configs.md from the JSON schema, so that the page cannot drift from it:
the protocol keys (from protocols/*/schema.json, one row per protocol and key) and the reference of every key (from
configs/schema/ftsim.schema.json, one row per key path). Each table sits between two markers in the page,

    <!-- BEGIN GENERATED: NAME (scripts/config_reference.py) -->
    <!-- END GENERATED: NAME -->

and the prose around them is kept as written.

    scripts/config_reference.py --check   exit 1 if docs/configs.md is not what --write would make (a test runs this)
    scripts/config_reference.py --write   rewrite the generated tables in place
"""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "configs" / "schema" / "ftsim.schema.json"
PAGE = ROOT / "docs" / "configs.md"

# The schema's unit and range definitions, named as the page names them (the Units section explains them).
NAMED_DEFINITIONS = {
    "count": "count",
    "nodeIndex": "node",
    "positiveNumber": "number > 0",
    "size": "[size](#units)",
    "duration": "[duration](#units)",
    "positiveDuration": "positive [duration](#units)",
    "bandwidth": "[bandwidth](#units)",
}


def number(value):
    """A bound as the schema writes it: integers in full (4294967295, not 4.29e+09)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class Schema:
    def __init__(self, document):
        self.definitions = document["$defs"]

    def resolve(self, node):
        """The node with its $ref followed (a $ref's siblings, e.g. a description or default, win)."""
        while isinstance(node, dict) and "$ref" in node:
            target = self.definitions[node["$ref"].removeprefix("#/$defs/")]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def type_of(self, node):
        """A short type: an enum's values, a named unit, a range, or the JSON type."""
        if node is True:
            return "any"
        ref = node.get("$ref", "").removeprefix("#/$defs/")
        if ref in NAMED_DEFINITIONS:
            return NAMED_DEFINITIONS[ref]
        node = self.resolve(node)
        if "const" in node:
            return f"`{json.dumps(node['const'])}`"
        if "enum" in node:
            values = [f"`{json.dumps(v)}`" for v in node["enum"]]
            return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
        kind = node.get("type", "object" if "properties" in node else None)
        if kind is None and ("oneOf" in node or "anyOf" in node):
            return " or ".join(dict.fromkeys(self.type_of(branch) for branch in node.get("oneOf", node.get("anyOf"))))
        if kind == "integer" or kind == "number":
            low = node.get("minimum", node.get("exclusiveMinimum"))
            high = node.get("maximum")
            name = "integer" if kind == "integer" else "number"
            if "exclusiveMinimum" in node:
                return f"{name} > {number(low)}" + (f", at most {number(high)}" if high is not None else "")
            if low is not None and high is not None:
                return f"{name}, {number(low)} to {number(high)}"
            if low is not None:
                return f"{name} ≥ {number(low)}"
            return name
        if kind == "string":
            return "non-empty string" if node.get("minLength", 0) >= 1 else "string"
        if kind == "array":
            items = node.get("items")
            if not isinstance(items, dict):
                return "array"
            inner = self.type_of(items)
            return f"array of ({inner})" if " or " in inner else f"array of {inner}"
        if kind in ("boolean", "object"):
            return kind
        return "—"

    def object_branch(self, node):
        """The object a key holds, if it holds one (directly, as one branch of a oneOf, or as the items of an
        array branch), and the path step its keys hang from ("" or "/i")."""
        node = self.resolve(node)
        if self.keys_of(node):
            return node, ""
        for branch in node.get("oneOf", []):
            branch = self.resolve(branch)
            if self.keys_of(branch):
                return branch, ""
        for branch in [node, *node.get("oneOf", [])]:
            branch = self.resolve(branch)
            items = branch.get("items")
            if branch.get("type") == "array" and isinstance(items, dict) and self.keys_of(self.resolve(items)):
                return self.resolve(items), "/i"
        return None, ""

    def keys_of(self, node):
        """Whether an object schema names keys of its own or a key per name (additionalProperties)."""
        return bool(node.get("properties")) or any(
            isinstance(v.get("then"), dict) and v["then"].get("properties") for v in node.get("allOf", [])) or (
            isinstance(node.get("additionalProperties"), dict) and self.object_branch(node["additionalProperties"])[0])

    def rows(self, node, path, when=""):
        """One row per key of an object schema, its variants (allOf: if KEY is VALUE, then ...) and what they hold,
        depth first in the schema's order."""
        node = self.resolve(node)
        required = set(node.get("required", []))
        conditional = {}  # key -> the variants that require it
        variants = []  # (condition, then)
        for rule in node.get("allOf", []):
            condition = rule.get("if", {}).get("properties", {})
            then = self.resolve(rule.get("then", {}))
            if len(condition) == 1 and "const" in next(iter(condition.values())) and isinstance(then, dict):
                key, test = next(iter(condition.items()))
                label = f"`{key}: {json.dumps(test['const'])}`"
                for name in then.get("required", []):
                    conditional.setdefault(name, []).append(label)
                variants.append((label, then))
        result = []
        for name, child in node.get("properties", {}).items():
            if isinstance(child, dict):
                result += self.row(name, child, path, when, name in required, conditional.get(name, []))
        for label, then in variants:
            then_required = set(then.get("required", []))
            for name, child in then.get("properties", {}).items():
                if isinstance(child, dict) and name not in node.get("properties", {}):
                    scope = f"{when}, {label}" if when else label
                    result += self.row(name, child, path, scope, name in then_required, [])
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            inner, step = self.object_branch(extra)
            if inner:
                result += self.rows(inner, f"{path}/NAME{step}", when)
        return result

    def row(self, name, child, path, when, required, required_when):
        resolved = self.resolve(child)
        key = f"{path}/{name}"
        kind = self.type_of(child)
        if required:
            kind += ", **required**"
        elif required_when:
            kind += ", **required** with " + " or ".join(required_when)
        default = f"`{json.dumps(resolved['default'], ensure_ascii=False)}`" if "default" in resolved else "—"
        # A unit's own description is the Units section's; a key without a description of its own says nothing.
        named = child.get("$ref", "").removeprefix("#/$defs/") in NAMED_DEFINITIONS
        meaning = child.get("description", "" if named else resolved.get("description", ""))
        meaning = meaning.replace("|", "\\|").replace("\n", " ")
        result = [f"| `{key}` | {when} | {kind} | {default} | {meaning} |"]
        inner, step = self.object_branch(child)
        if inner:
            result += self.rows(inner, key + step, when)
        return result


def protocol_table(schema):
    """The keys of each protocol, from its fragment protocols/<id>/schema.json."""
    lines = ["| protocol | key | type | default | meaning |", "|---|---|---|---|---|"]
    for path in sorted((ROOT / "protocols").glob("*/schema.json")):
        fragment = json.loads(path.read_text(encoding="utf-8"))
        protocol = path.parent.name
        summary = fragment["description"].replace("|", "\\|")
        lines.append(f"| `{protocol}` | | | | {summary} ([schema](../protocols/{protocol}/schema.json)) |")
        for row in schema.rows(fragment, "/protocol"):
            cells = row.split(" | ")
            lines.append(f"| `{protocol}` | {cells[0].removeprefix('| ')} | {' | '.join(cells[2:])}")
    return "\n".join(lines)


def key_table(schema):
    """Every key of a config, and of a sweep's section."""
    lines = ["| key | when | type | default | meaning |", "|---|---|---|---|---|"]
    lines += schema.rows(schema.definitions["config"], "")
    sweep = schema.definitions["sweepConfig"]["properties"]["sweep"]
    lines += schema.row("sweep", sweep, "", "", False, [])
    return "\n".join(lines)


def generated_sections():
    schema = Schema(json.loads(SCHEMA.read_text(encoding="utf-8")))
    return {"protocol keys": protocol_table(schema), "every key": key_table(schema)}


def rendered(text):
    for name, table in generated_sections().items():
        begin = f"<!-- BEGIN GENERATED: {name} (scripts/config_reference.py) -->"
        end = f"<!-- END GENERATED: {name} -->"
        pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
        if len(pattern.findall(text)) != 1:
            sys.exit(f"{PAGE.relative_to(ROOT)}: expected the markers {begin} ... {end} once")
        text = pattern.sub(lambda _: f"{begin}\n{table}\n{end}", text)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true")
    group.add_argument("--write", action="store_true")
    args = parser.parse_args()
    old = PAGE.read_text(encoding="utf-8")
    new = rendered(old)
    if args.write:
        PAGE.write_text(new, encoding="utf-8")
        return 0
    if new != old:
        print(f"{PAGE.relative_to(ROOT)}: its generated key tables differ from the schema: "
              "run scripts/config_reference.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
