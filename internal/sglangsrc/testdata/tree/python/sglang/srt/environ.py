import os


class Envs:
    SGLANG_WIDGET = EnvBoolWithAlias(False, deprecated_name="SGL_WIDGET")
    SGLANG_CACHE_DIR = EnvStr("/tmp/c")


envs = Envs()


def cache_defaults():
    return {"TRITON_CACHE_DIR": "/t", "CUDA_CACHE_PATH": "/n"}


def redirect():
    for key, value in cache_defaults().items():
        os.environ.setdefault(key, value)


def legacy():
    for key, value in os.environ.items():
        if key.startswith("SGL_"):
            new_key = key.replace("SGL_", "SGLANG_", 1)
            os.environ[new_key] = value


LEVEL = os.getenv("SGLANG_LOG_LEVEL", "info")


class _DeprecatedEnv:
    pass


_DEPRECATED_ENVS = {
    "SGLANG_OLD_WIDGET": _DeprecatedEnv(replacement="SGLANG_WIDGET", transform=_invert_bool),
    "SGLANG_GONE": _DeprecatedEnv(note="Please use '--gone' instead."),
}

RANK = os.environ["SGLANG_SUB_READ"]
if "SGLANG_IN_READ" in os.environ:
    pass
