# sglaunch's Python start-up probe. Run as `python -S -c ...`: it hooks
# every way Python code changes the process environment, then runs site
# initialisation (.pth files, sitecustomize, usercustomize) exactly as a
# normal start would, and prints the changes to managed variables as JSON
# with the file and line that made each one. It never imports sglang.
import json
import os
import sys

managed = json.loads(sys.argv[2])  # argv: -c, this source, the managed names
PROBE = "<sglaunch-site-probe>"
OS_FILES = ("os.py", "<frozen os>", "_collections_abc.py", "<frozen _collections_abc>")


def is_managed(name):
    return any(name == m or (m.endswith("_") and name.startswith(m)) for m in managed)


def origin():
    """The file and line outside os/probe code that caused the change."""
    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename == PROBE or f.f_code.co_filename.endswith(OS_FILES)):
        f = f.f_back
    if f is None:
        return "?", 0
    # A .pth line runs through exec() in site.addpackage: name the .pth file.
    if f.f_code.co_filename == "<string>" and f.f_back is not None and f.f_back.f_code.co_name == "addpackage":
        loc = f.f_back.f_locals
        return loc.get("fullname", "?"), loc.get("n", -1) + 1
    return f.f_code.co_filename, f.f_lineno


last = {}


def note(name, value):
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if is_managed(name):
        last[name] = (value, origin())


Environ = type(os.environ)
_setitem, _delitem = Environ.__setitem__, Environ.__delitem__


def setitem(self, key, value):
    note(key, value)
    _setitem(self, key, value)


def delitem(self, key):
    note(key, None)
    _delitem(self, key)


Environ.__setitem__, Environ.__delitem__ = setitem, delitem

_putenv, _unsetenv = os.putenv, os.unsetenv


def from_environ():
    name = sys._getframe(2).f_code.co_filename
    return name.endswith(OS_FILES)


def putenv(key, value):
    if not from_environ():
        note(key, value)
    _putenv(key, value)


def unsetenv(key):
    if not from_environ():
        note(key, None)
    _unsetenv(key)


os.putenv, os.unsetenv = putenv, unsetenv

before = dict(os.environ)
import site  # noqa: E402

site.main()

changes = []
for name, (value, (file, line)) in sorted(last.items()):
    old = before.get(name)
    if value == old:
        continue
    changes.append({"name": name, "before": old or "", "after": value or "", "unset": value is None,
                    "file": file, "line": line})
sys.stdout.write(json.dumps({"changes": changes}))
