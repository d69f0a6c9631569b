"""The variables SGLang writes into its own environment, taken from the
table generated from SGLang's source rather than written into the sim by
hand.

sglaunch's sim package unpacks sglang_env_writes.json beside this file: the
env_writes table (catalog/sglangtab) for the version the sim reports, picked
as verify picks it. Each row names a variable, how SGLang writes it
(assign, setdefault, envs.set), the function and the conditions under which
it does, the value expression, and its SGLang file and line. perform() does
the rows of one SGLang function, evaluating each row's conditions and value
in a namespace the caller gives (the parsed arguments, as on a CUDA host
with no MNNVL fabric). A row whose condition or value names something the
namespace lacks (a model config, a kernel probe) is not performed;
sim/README.md says so.
"""

import json
import os

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sglang_env_writes.json")
_BUILTINS = {"str": str, "int": int, "bool": bool, "float": float, "len": len, "True": True, "False": False, "None": None}

SERVER_ARGS = "python/sglang/srt/server_args.py"
ENGINE = "python/sglang/srt/entrypoints/engine.py"


def rows_of(source, functions):
    """The table's rows of functions in the SGLang file source, in order."""
    with open(_TABLE, encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    return [
        r
        for r in rows
        if r["source"].startswith(source + ":")
        and r["function"] in functions
        and r["name"]
        and not r["name"].endswith("*")
        and r["how"] in ("assign", "envs.set", "setdefault")
    ]


def perform(source, functions, ns):
    """Do the writes of functions (in the SGLang file source) as SGLang
    would under ns; return the names written."""
    ns = dict(ns, os=os)
    written = []
    for row in rows_of(source, functions):
        try:
            if not all(_holds(cond, ns) for cond in row["when"]):
                continue
            value = eval(row["value"], {"__builtins__": _BUILTINS}, ns)  # noqa: S307 - generated table, checked in
        except Exception:
            continue
        if value is None and row["how"] != "envs.set":
            continue
        if row["how"] == "setdefault":
            os.environ.setdefault(row["name"], str(value))
        else:
            os.environ[row["name"]] = str(value)
        written.append(row["name"])
    return written


def apply_server_args_writes(args, envs):
    """What ServerArgs' __post_init__ writes on every start
    (_handle_environment_variables, and the transport it resolves)."""
    return perform(
        SERVER_ARGS,
        ("ServerArgs._handle_environment_variables", "ServerArgs._handle_multimodal_feature_transport"),
        {
            "self": args,
            "envs": envs,
            "is_cuda": lambda: True,
            "is_hip": lambda: False,
            "is_npu": lambda: False,
            # The resolved multimodal transport: the flag as given (the sim
            # serves no multimodal model to resolve it).
            "requested_transport": getattr(args, "mm_feature_transport", None),
        },
    )


def _holds(cond, ns):
    if cond.startswith(("for ", "except ", "case ")):
        raise ValueError("not an expression: " + cond)
    return bool(eval(cond, {"__builtins__": _BUILTINS}, ns))  # noqa: S307
