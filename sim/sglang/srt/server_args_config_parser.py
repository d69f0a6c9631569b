"""``--config FILE.yaml`` support, as SGLang's ConfigArgumentMerger does it.

Keys are flag names without the leading dashes (dashes or underscores). The
file's values become parser defaults, so any flag on the command line wins.
Only plain (store) and store_true flags may appear in the file.

The sim is stdlib only, so this module carries a small YAML reader that
covers what a flat config file needs: ``key: scalar``, inline ``[a, b]``
lists, block ``- item`` lists, quoted strings, comments, booleans and nulls.
"""

import argparse
import json
import os
import re


class ConfigError(ValueError):
    pass


_BOOL_TRUE = {"true", "yes", "on", "y"}
_BOOL_FALSE = {"false", "no", "off", "n"}
_NULL = {"null", "~", ""}


def _strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    low = text.lower()
    if low in _NULL:
        return None
    if low in _BOOL_TRUE:
        return True
    if low in _BOOL_FALSE:
        return False
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", text):
        return float(text)
    if text.startswith("{") or text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            pass
        if text.startswith("[") and text.endswith("]"):
            inner = text[1:-1].strip()
            return [_scalar(p) for p in inner.split(",")] if inner else []
    return text


def load_yaml(text):
    """Parse a flat YAML mapping; raise ConfigError on anything else."""
    data, key, block, blocks = {}, None, None, set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not line.strip() or line.strip() in ("---", "..."):
            continue
        stripped = line.strip()
        if stripped.startswith("- "):
            if key is None or block is None:
                raise ConfigError(f"line {lineno}: list item outside a list")
            block.append(_scalar(stripped[2:]))
            continue
        if line[0] in " \t":
            raise ConfigError(f"line {lineno}: nested mappings are not supported")
        k, sep, v = line.partition(":")
        if not sep:
            raise ConfigError(f"line {lineno}: want 'key: value'")
        key = k.strip()
        if v.strip() == "":
            block = []
            data[key] = block
            blocks.add(key)
        else:
            block = None
            data[key] = _scalar(v)
    for k in blocks:
        if not data[k]:
            # "key:" with nothing under it is null in YAML.
            data[k] = None
    return data


class ConfigArgumentMerger:
    def __init__(self, parser):
        self.parser = parser
        self.store_true = {a.dest for a in parser._actions if isinstance(a, argparse._StoreTrueAction)}
        self.supported = {
            a.dest: a
            for a in parser._actions
            if isinstance(a, (argparse._StoreTrueAction, argparse._StoreAction))
        }
        self.all_dests = {a.dest: a for a in parser._actions}

    def _path(self, argv):
        paths = []
        for i, a in enumerate(argv):
            if a == "--config":
                if i + 1 >= len(argv):
                    raise ConfigError("No config file specified after --config flag!")
                paths.append(argv[i + 1])
            elif a.startswith("--config="):
                paths.append(a.split("=", 1)[1])
        if len(paths) > 1:
            raise ConfigError("Multiple config files specified! Only one allowed.")
        return paths[0] if paths else None

    def parse_config(self, argv):
        path = self._path(argv)
        if not path:
            return {}
        if os.path.splitext(path)[1].lower() not in (".yaml", ".yml"):
            raise ConfigError(f"Config file must be YAML format, got: {os.path.splitext(path)[1]}")
        if not os.path.exists(path):
            raise ConfigError(f"Config file not found: {path}")
        with open(path, encoding="utf-8") as f:
            data = load_yaml(f.read())
        out = {}
        for key, value in data.items():
            dest = key.replace("-", "_")
            if dest in self.all_dests and dest not in self.supported:
                action = self.all_dests[dest]
                raise ConfigError(f"Unsupported config option '{dest}' with action '{action.__class__.__name__}'")
            action = self.supported.get(dest)
            if action is None:
                continue
            if action.choices and value not in action.choices:
                raise ConfigError(f"Invalid value for '{key}': {value}. Allowed choices: {action.choices}")
            if dest in self.store_true:
                if not isinstance(value, bool):
                    raise ConfigError(
                        f"Invalid value for '{key}': {value}. Expected boolean (true/false), got {type(value).__name__}"
                    )
            elif value is not None and callable(action.type):
                try:
                    if isinstance(value, list):
                        value = [v if isinstance(v, (dict, list)) else action.type(v) for v in value]
                    elif not isinstance(value, (dict, list)) or action.type in (int, float, str):
                        if not (action.type in (int, float, str) and isinstance(value, action.type)):
                            value = action.type(value if not isinstance(value, (dict, list)) else json.dumps(value))
                except (ValueError, TypeError, argparse.ArgumentTypeError) as e:
                    raise ConfigError(f"Invalid value for '{key}': {value}. Type conversion failed: {e}") from e
            out[dest] = value
        return out

    @staticmethod
    def remove_config_from_argv(argv):
        out, skip = [], False
        for a in argv:
            if skip:
                skip = False
                continue
            if a == "--config":
                skip = True
                continue
            if a.startswith("--config="):
                continue
            out.append(a)
        return out
