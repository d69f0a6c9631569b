"""SGLang's launch_server flags, parsed by a real argparse parser.

The parser is built from the catalog of real flags in server_args.json (written
beside this file when the sim is unpacked), so it accepts, rejects and
abbreviates exactly what SGLang's own argparse does: unique prefixes work
(``--tp``), unknown or ambiguous options and bad values exit with status 2
and argparse's own message, and ``--help`` prints argparse's help with SGLang's own help texts
(server_args.py @ dd458f32, carried by the catalog).
"""

import argparse
import json
import os
import random
import re
import sys

from sglang.srt.environ import envs
from sglang.srt.server_args_config_parser import ConfigArgumentMerger
from sglang.srt.sglang_tables import apply_server_args_writes
from sglang.srt.utils import last_resort_warning

CATALOG_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_args.json")

# Dests that are argparse plumbing, not ServerArgs fields.
_NOT_FIELDS = {"config", "help"}


def print_deprecated_warning(message):
    # SGLang logs this through a module logger before logging is configured,
    # so Python's last-resort handler prints the bare message to stderr.
    sys.stderr.write(f"\033[1;33m{message}\033[0m\n")
    sys.stderr.flush()


def json_list_type(value):
    out = json.loads(value)
    if not isinstance(out, list):
        raise argparse.ArgumentTypeError(f"expected a JSON list, got {value!r}")
    return out


_TYPES = {"str": str, "int": int, "float": float, "json": json.loads}


def _flag_spelling(replacement):
    """Render a catalog replacement as the flag a user should type."""
    if not replacement:
        return ""
    if replacement.startswith("-"):
        return replacement
    key, sep, value = replacement.partition("=")
    return "--" + key.replace("_", "-") + (sep + value if sep else "")


def _replacement_target(replacement):
    """(dest, value) a replacement like "--x-y=v" or "x_y=v" assigns, else None."""
    m = re.match(r"^-*([A-Za-z0-9_-]+)=([^{}]*)$", replacement or "")
    if not m:
        return None
    return m.group(1).replace("-", "_"), m.group(2)


def _deprecated_message(option_string, new_flag):
    replacement = f" Use '{new_flag}' instead." if new_flag else ""
    return f"'{option_string}' is deprecated and will be removed in a future release.{replacement}"


class DeprecatedAction(argparse.Action):
    """A flag that only warns; a removed one fails the parse."""

    def __init__(self, option_strings, dest, removed=False, nargs=0, **kwargs):
        self.removed = removed
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if self.removed:
            parser.error(f"argument {option_string}: the command line argument has been removed.")
        print_deprecated_warning(
            f"The command line argument '{option_string}' is deprecated and will be removed in future versions."
        )


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag="", also=None, nargs=0, default=False, **kwargs):
        self.new_flag = new_flag
        self.also = also
        super().__init__(option_strings, dest, nargs=nargs, default=default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(_deprecated_message(option_string, self.new_flag))
        setattr(namespace, self.dest, True)
        if self.also:
            namespace._sim_deprecated_side_effects = getattr(namespace, "_sim_deprecated_side_effects", [])
            namespace._sim_deprecated_side_effects.append(self.also)


class DeprecatedStoreConstAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag="", const_value=True, nargs=0, **kwargs):
        self.new_flag = new_flag
        self.const_value = const_value
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(_deprecated_message(option_string, self.new_flag))
        setattr(namespace, self.dest, self.const_value)


class DeprecatedAliasStoreAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag="", **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(_deprecated_message(option_string, self.new_flag))
        setattr(namespace, self.dest, values)


def _typed_default(flag, typ):
    raw = flag.get("default")
    if raw is None:
        return None
    if raw == "None" or raw.startswith("None ") or raw == "-":
        return None
    action = flag.get("action")
    if action in ("store_true", "boolean_optional"):
        return raw.strip().lower() == "true"
    if flag.get("nargs") and raw.startswith("["):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return raw[1:-1]
    if typ in (int, float):
        try:
            return typ(raw)
        except ValueError:
            return raw
    return raw


def _typed_choices(choices, typ):
    if not choices:
        return None
    if typ in (int, float):
        try:
            return [typ(c) for c in choices]
        except ValueError:
            pass
    return list(choices)


class Catalog:
    """The flag catalog and the ServerArgs field list it implies."""

    def __init__(self, data):
        self.source = data.get("source", "")
        self.flags = data.get("flags", [])
        main_dests = set()
        for f in self.flags:
            if not f.get("deprecated"):
                main_dests.add(f["dest"])
        self.main_dests = main_dests
        fields = []
        seen = set()
        for f in self.flags:
            dest = f["dest"]
            if dest in seen or dest in _NOT_FIELDS:
                continue
            if f.get("deprecated"):
                act = f.get("action")
                rep = f.get("replacement", "")
                # A deprecated flag that writes another field is not a field
                # of its own; a deprecated bool with its own name still is.
                if act not in ("store_true", "boolean_optional"):
                    continue
                if rep and not rep.startswith("-") and "=" not in rep:
                    continue
            seen.add(dest)
            fields.append(dest)
        self.fields = fields


def load_catalog(path=CATALOG_PATH):
    with open(path, encoding="utf-8") as f:
        return Catalog(json.load(f))


def build_parser(catalog):
    parser = argparse.ArgumentParser(prog="launch_server.py")
    field_dests = set(catalog.fields)
    for f in catalog.flags:
        names = [f["name"]] + list(f.get("aliases") or [])
        dest = f["dest"]
        typ = _TYPES.get(f.get("type") or "str", str)
        action = f.get("action") or "store"
        deprecated = bool(f.get("deprecated"))
        new_flag = _flag_spelling(f.get("replacement", ""))
        kw = {"dest": dest}
        if f.get("help_suppressed"):
            kw["help"] = argparse.SUPPRESS
        elif f.get("help"):
            # SGLang's own help text (catalog: server_args.py); argparse
            # %-formats help strings.
            kw["help"] = f["help"].replace("%", "%%")
        shared = deprecated and dest in catalog.main_dests
        if action == "store_true":
            if deprecated:
                rep = f.get("replacement", "")
                target = _replacement_target(rep)
                if rep and not rep.startswith("-") and "=" not in rep:
                    # e.g. --stream-output writes incremental_streaming_output.
                    kw["dest"] = rep
                    kw["default"] = argparse.SUPPRESS
                elif target and target[0] in field_dests:
                    kw["also"] = target
                kw.update(action=DeprecatedStoreTrueAction, new_flag=new_flag)
                if "default" not in kw:
                    kw["default"] = _typed_default(f, typ) or False
            else:
                kw.update(action="store_true", default=bool(_typed_default(f, typ)))
        elif action == "boolean_optional":
            kw.update(action=argparse.BooleanOptionalAction, default=_typed_default(f, typ))
        elif action == "store_const":
            target = _replacement_target(f.get("replacement", ""))
            if target and target[0] in field_dests:
                kw["dest"], const = target
            else:
                const = True
            kw.update(action=DeprecatedStoreConstAction, new_flag=new_flag, const_value=const, default=argparse.SUPPRESS)
        elif action == "deprecated":
            kw.update(action=DeprecatedAction, removed=bool(f.get("removed")), default=argparse.SUPPRESS)
        else:
            kw["type"] = typ
            nargs = f.get("nargs") or None
            if nargs:
                kw["nargs"] = nargs
                if nargs == "?":
                    kw["const"] = "" if typ is str else None
            choices = _typed_choices(f.get("choices"), typ)
            if choices:
                kw["choices"] = choices
            if f.get("required"):
                kw["required"] = True
            if deprecated:
                kw.update(action=DeprecatedAliasStoreAction, new_flag=new_flag)
                kw["default"] = argparse.SUPPRESS if shared else _typed_default(f, typ)
            else:
                kw["default"] = _typed_default(f, typ)
        parser.add_argument(*names, **kw)
    return parser


class ServerArgs:
    """Every parsed argument, as attributes, in the catalog's field order."""

    def __init__(self, fields, values):
        self._fields = list(fields)
        for name in self._fields:
            setattr(self, name, values.get(name))

    def to_dict(self):
        return {name: getattr(self, name) for name in self._fields}

    def __repr__(self):
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"ServerArgs({body})"

    def get(self, name, default=None):
        value = getattr(self, name, None)
        return default if value is None else value

    def __post_init__(self):
        # The few derived defaults SGLang fills in that clients look at.
        if getattr(self, "tokenizer_path", None) is None and "tokenizer_path" in self._fields:
            self.tokenizer_path = self.model_path
        if getattr(self, "served_model_name", None) is None and "served_model_name" in self._fields:
            self.served_model_name = self.model_path
        if getattr(self, "device", None) is None and "device" in self._fields:
            self.device = "cuda"
        if getattr(self, "random_seed", None) is None and "random_seed" in self._fields:
            self.random_seed = random.randint(0, 1 << 30)
        if getattr(self, "mem_fraction_static", None) is None and "mem_fraction_static" in self._fields:
            self.mem_fraction_static = 0.88
        if getattr(self, "chunked_prefill_size", None) is None and "chunked_prefill_size" in self._fields:
            self.chunked_prefill_size = 8192

    def url(self):
        host = self.host or "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"


def prepare_server_args(argv, catalog=None):
    """Parse argv as `python -m sglang.launch_server` does; exits 2 on a bad flag."""
    catalog = catalog or load_catalog()
    parser = build_parser(catalog)
    argv = list(argv)
    if any(a == "--config" or a.startswith("--config=") for a in argv):
        merger = ConfigArgumentMerger(parser)
        config = merger.parse_config(argv)
        argv = merger.remove_config_from_argv(argv)
        for action in parser._actions:
            if action.required and action.dest in config:
                action.required = False
        parser.set_defaults(**config)
    ns = parser.parse_args(argv)
    values = vars(ns)
    for dest, value in getattr(ns, "_sim_deprecated_side_effects", []):
        if values.get(dest) is None:
            values[dest] = value
    args = ServerArgs(catalog.fields, values)
    args.__post_init__()
    # ServerArgs._handle_environment_variables and the transport it
    # resolves, as the generated table for the sim's version says.
    apply_server_args_writes(args, envs)
    _resolution_side_effects(args)
    return args


def _resolution_side_effects(args):
    """What SGLang's argument resolution does to the process beyond the args
    (server_args.py and arg_groups/speculative_hook.py @ dd458f32). Logging
    is not configured yet, so the warnings are bare lines on stderr."""
    # speculative_hook.py handle_speculative_decoding: a raw os.getenv on the
    # removed name, whatever --speculative-algorithm says.
    if os.getenv("SGLANG_ENABLE_SPEC_V2") is not None:
        last_resort_warning(
            "SGLANG_ENABLE_SPEC_V2 has been removed: speculative decoding "
            "always runs the V2 worker. Use --disable-overlap-schedule to "
            "select the non-overlap (synchronous) path."
        )
    # server_args.py _handle_deterministic_inference, CUDA with TP > 1: NCCL's
    # tree all-reduce with a pinned channel count, overwriting what was set.
    if args.get("enable_deterministic_inference", False) and int(args.get("tp_size", 1)) > 1:
        os.environ["NCCL_ALGO"] = "allreduce:tree"
        nchannels = os.environ.get("SGLANG_DETERMINISTIC_NCCL_NCHANNELS", "").strip() or "8"
        os.environ["NCCL_MIN_NCHANNELS"] = nchannels
        os.environ["NCCL_MAX_NCHANNELS"] = nchannels
        if "disable_custom_all_reduce" in args._fields:
            args.disable_custom_all_reduce = True
        if "enable_torch_symm_mem" in args._fields:
            args.enable_torch_symm_mem = False
        last_resort_warning(
            "NCCL_ALGO is set to 'allreduce:tree', the NCCL channel count is pinned, and custom and "
            "symmetric-memory all reduce are disabled for deterministic inference when TP size > 1."
        )
