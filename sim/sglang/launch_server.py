"""Launch the simulated SGLang server: ``python -m sglang.launch_server --model-path M``.

Order, as in SGLang: parse the flags (exit 2 on a bad one), log server_args,
start the workers and wait for the model load, bind the HTTP port, warm up,
report ready. Right after parsing, the sim writes its invocation record and
its log flood when asked (SGLANG_SIM_RECORD, SGLANG_SIM_LOG_FLOOD_BYTES).
"""

import signal
import sys

from sglang.srt import perf_model, sim_env
from sglang.srt.sim_hooks import log_flood, record_invocation, stamp


def main(argv=None):
    cfg = sim_env.config()
    if cfg.ignore_sigterm:
        # Inherited across exec, so every worker ignores it too.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    from sglang.srt import environ  # noqa: F401  (deprecated-name handling at import, as SGLang)
    from sglang.srt.http_server import launch_server
    from sglang.srt.server_args import prepare_server_args

    # As in SGLang, argparse comes first: --help and a bad flag exit before
    # the server does or prints anything.
    server_args = prepare_server_args(sys.argv[1:] if argv is None else argv)
    perf_model.apply(cfg, server_args)  # SGLANG_SIM_PERF_MODEL: timings from the settings
    if cfg.record:
        record_invocation(cfg.record)
    if cfg.log_flood_bytes:
        stamp("flood_begin")
        log_flood(cfg.log_flood_bytes)
        stamp("flood_end")
        if cfg.exit_after_flood:
            sys.exit(0)
    launch_server(server_args, cfg)


if __name__ == "__main__":
    main()
