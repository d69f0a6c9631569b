"""Validate a Kubernetes object (JSON) against a CRD version's
openAPIV3Schema (JSON) with python3-jsonschema, the way the API server
reads the Kubernetes extensions. Used by lws_test.go.

usage: validate_crd.py SCHEMA.json OBJECT.json
exit 0: valid; 1: invalid (one line per error); 3: jsonschema missing;
4: the schema uses an extension this script does not handle.
"""
import json
import re
import sys

try:
    from jsonschema import Draft4Validator, FormatChecker, validators
    from jsonschema.exceptions import ValidationError
except ImportError:
    print("python3-jsonschema is missing: apt-get install python3-jsonschema")
    sys.exit(3)

# The extensions the LWS CRD uses. A new one fails the run (exit 4) rather
# than being ignored: each must be read as the API server reads it.
HANDLED = {
    "x-kubernetes-int-or-string",  # an integer or a string (keyword below)
    "x-kubernetes-list-type",  # set: unique items; map: unique by keys (keyword below)
    "x-kubernetes-list-map-keys",  # read by x-kubernetes-list-type: map
    "x-kubernetes-map-type",  # granular or atomic: how apply merges; no validation
}
FORMATS = {"int32", "int64", "date-time"}


def prepare(s, path):
    """Walk the schema structurally: check its extensions and formats, and
    make every object with properties strict (additionalProperties: false),
    as kubectl apply's default strict field validation rejects an unknown
    field instead of pruning it."""
    if not isinstance(s, dict):
        return
    for k in s:
        if k.startswith("x-kubernetes-") and k not in HANDLED:
            print(f"{path}: {k} is not handled by validate_crd.py")
            sys.exit(4)
    if "format" in s and s["format"] not in FORMATS:
        print(f"{path}: format {s['format']} is not handled by validate_crd.py")
        sys.exit(4)
    if "properties" in s and "additionalProperties" not in s:
        s["additionalProperties"] = False
    for name, sub in s.get("properties", {}).items():
        prepare(sub, f"{path}.{name}")
    for k in ("items", "additionalProperties", "not"):
        prepare(s.get(k), f"{path}[{k}]")
    for k in ("anyOf", "allOf", "oneOf"):
        for i, sub in enumerate(s.get(k, [])):
            prepare(sub, f"{path}[{k}{i}]")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def int_or_string(validator, value, instance, schema):
    if value and not (is_int(instance) or isinstance(instance, str)):
        yield ValidationError(f"{instance!r} is neither an integer nor a string (x-kubernetes-int-or-string)")


def list_type(validator, value, instance, schema):
    if not isinstance(instance, list):
        return
    if value == "set":
        seen = []
        for item in instance:
            if item in seen:
                yield ValidationError(f"duplicate item {item!r} in a list of type set")
            seen.append(item)
    elif value == "map":
        # Items are unique by their keys; a key left out takes its default
        # (a containerPort's protocol is TCP), as the API server reads it.
        props = schema.get("items", {}).get("properties", {})
        seen = set()
        for item in instance:
            if not isinstance(item, dict):
                continue
            key = tuple(json.dumps(item.get(k, props.get(k, {}).get("default"))) for k in schema.get("x-kubernetes-list-map-keys", []))
            if key in seen:
                yield ValidationError(f"duplicate key {key} in a list of type map")
            seen.add(key)


formats = FormatChecker(formats=())


@formats.checks("int32")
def int32(v):
    return not is_int(v) or -(2**31) <= v < 2**31


@formats.checks("int64")
def int64(v):
    return not is_int(v) or -(2**63) <= v < 2**63


@formats.checks("date-time")
def date_time(v):
    return not isinstance(v, str) or re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", v) is not None


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    with open(sys.argv[2]) as f:
        obj = json.load(f)
    Draft4Validator.check_schema(schema)
    prepare(schema, "$")
    # OpenAPI v3.0's schema object is JSON Schema draft 4's vocabulary (with
    # exclusiveMaximum as a boolean), so draft 4 reads it as written.
    K8s = validators.extend(Draft4Validator, {"x-kubernetes-int-or-string": int_or_string, "x-kubernetes-list-type": list_type})
    errors = sorted(K8s(schema, format_checker=formats).iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        print(".".join(map(str, e.absolute_path)) or "$", ":", e.message)
    sys.exit(1 if errors else 0)


main()
