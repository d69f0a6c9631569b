"""A simulated SGLang server for tests and demos (stdlib only).

It parses SGLang's real launch_server flags, starts the same process tree,
logs the same start-up lines in the same order, and serves the native and
OpenAI-compatible endpoints with configurable token timing. It runs no model
and touches no GPU. See sglang/srt/sim_env.py for its SGLANG_SIM_* knobs.
"""

# As SGLang's sglang/__init__.py does first: point the third-party JIT caches
# (TRITON_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR, CUDA_CACHE_PATH,
# FLASHINFER_WORKSPACE_BASE) under SGLANG_CACHE_DIR unless they are set.
from sglang.srt.environ import redirect_third_party_caches

redirect_third_party_caches()

from sglang.version import __version__  # noqa: E402

__all__ = ["__version__"]
