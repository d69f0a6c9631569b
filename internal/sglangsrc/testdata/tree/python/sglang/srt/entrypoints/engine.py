import logging
import os

logger = logging.getLogger(__name__)


def _set_envs_and_config(server_args):
    if "NCCL_CUMEM_ENABLE" not in os.environ or server_args.enable_symm_mem:
        os.environ["NCCL_CUMEM_ENABLE"] = str(int(server_args.enable_symm_mem))
    if os.environ.get("CUTE_DSL_LOG_LEVEL") is None:
        os.environ["CUTE_DSL_LOG_LEVEL"] = "30"
    os.putenv("PUT_ME", "1")
    os.environ.update({"UPDATED_A": "a"}, UPDATED_B="b")


def load(elapsed):
    logger.info(f"Load weight end. elapsed={elapsed:.2f} s")
    logger.info("Nothing to see here")


def allocated(label, size):
    cache_name = f"{label} KV Cache" if label is not None else "KV Cache"
    logger.info(f"{cache_name} is allocated. #tokens: {size}")


def reserved(post_capture):
    logger.info(
        f"KV Cache {'VA upper bound' if post_capture else 'is allocated'}. "
        f"dtype: {post_capture}"
    )


def pdl():
    if os.environ.get("PDL", "1") != "0":
        os.environ["PDL"] = "1"


def fill_empty():
    if not os.getenv("FILL_EMPTY"):
        os.environ["FILL_EMPTY"] = "x"


def capture(role):
    logger.info(f"Load weight begin. avail mem={mem} GB")
    logger.info(f"Capture {role} decode CUDA graph begin. bs={bs}")
    logger.info(f"Capture {role} decode CUDA graph end. elapsed={t} s")
    logger.info(f"Capture cuda graph bs {bs}")


def capture_named(role, speculative):
    if speculative:
        capture_name = f"{role} verify"
    else:
        capture_name = f"{role} decode"
    logger.info(f"Capture {capture_name} CUDA graph begin. bs={bs}")


def capture_draft(bs):
    log_info_on_rank0(logger, f"Capture draft extend CUDA graph begin. bs={bs}")
