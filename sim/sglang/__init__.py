"""A simulated SGLang server for tests and demos (stdlib only).

It parses SGLang's real launch_server flags, starts the same process tree,
logs the same start-up lines in the same order, and serves the native and
OpenAI-compatible endpoints with configurable token timing. It runs no model
and touches no GPU. See sglang/srt/sim_env.py for its SGLANG_SIM_* knobs.
"""

from sglang.version import __version__

__all__ = ["__version__"]
