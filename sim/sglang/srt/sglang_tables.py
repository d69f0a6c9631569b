"""The variables SGLang's ServerArgs writes into the environment on every
start, taken from the table generated from SGLang's own source.

sglaunch's sim package unpacks sglang_env_writes.json beside this file: the
env_writes table (catalog/sglangtab) for the version the sim reports, picked
as verify picks it. Each row names a variable, the function and conditions
under which SGLang writes it, the value expression, and its SGLang file and
line. The sim performs the rows of the ServerArgs methods __post_init__
calls on every start (_WRITERS), evaluating each row's conditions and value
against the parsed arguments, as if on a CUDA host. A row whose condition
or value names something the sim does not model (a model config, a kernel
probe) is not performed; sim/README.md says so.
"""

import json
import os

_SOURCE = "python/sglang/srt/server_args.py:"
_WRITERS = (
    "ServerArgs._handle_environment_variables",
    "ServerArgs._handle_multimodal_feature_transport",
)
_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sglang_env_writes.json")


def server_args_writes():
    """The table's rows the sim performs, in SGLang's order."""
    with open(_TABLE, encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    return [
        r
        for r in rows
        if r["source"].startswith(_SOURCE)
        and r["function"] in _WRITERS
        and r["name"]
        and not r["name"].endswith("*")
        and r["how"] in ("assign", "envs.set")
    ]


def apply_server_args_writes(args, envs):
    """Write what SGLang's ServerArgs writes for args; return the names."""
    ns = {
        "self": args,
        "envs": envs,
        "is_cuda": lambda: True,
        "is_hip": lambda: False,
        "is_npu": lambda: False,
        # _handle_multimodal_feature_transport's resolved transport: the
        # flag as given (the sim serves no multimodal model to resolve it).
        "requested_transport": getattr(args, "mm_feature_transport", None),
    }
    written = []
    for row in server_args_writes():
        try:
            if not all(_holds(cond, ns) for cond in row["when"]):
                continue
            value = eval(row["value"], {"__builtins__": {}}, ns)  # noqa: S307 - generated table, checked in
        except Exception:
            continue
        if value is None and row["how"] == "assign":
            continue
        os.environ[row["name"]] = str(value)
        written.append(row["name"])
    return written


def _holds(cond, ns):
    if cond.startswith(("for ", "except ", "case ")):
        raise ValueError("not an expression: " + cond)
    return bool(eval(cond, {"__builtins__": {}}, ns))  # noqa: S307
