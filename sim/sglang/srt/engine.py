"""Start the server's worker processes and wait for the model load.

Mirrors SGLang's Engine._launch_subprocesses: set the process-wide environment
SGLang sets, start one scheduler per TP (and PP) rank and a detokenizer, and
block until every rank reports it has loaded. A rank that fails during the load
sends SIGQUIT, and the launch-phase handler takes the whole tree down before the
HTTP port is ever bound.

SGLang also reads SGLANG_BLOCK_NONZERO_RANK_CHILDREN and SGLANG_DP_RANK here and
sets SGLANG_RUN_ID; the sim does not model multi-node or data parallelism, so it
leaves them alone.
"""

import os
import select
import signal
import subprocess
import sys
import time

from sglang.srt.sim_hooks import stamp
from sglang.srt.utils import flush_std, kill_process_tree, logger


class Child:
    def __init__(self, name, popen, ready_fd, ctl_fd):
        self.name = name
        self.popen = popen
        self.ready_fd = ready_fd
        self.ctl_fd = ctl_fd

    @property
    def pid(self):
        return self.popen.pid


def set_envs_and_config(server_args):
    """The process-wide environment SGLang sets before starting its children,
    which therefore differs from the launcher's: NCCL_CUMEM_ENABLE and
    NCCL_NVLS_ENABLE when unset, and CUDA_DEVICE_MAX_CONNECTIONS forced."""
    symm = bool(server_args.get("enable_symm_mem", False))
    nvls = bool(server_args.get("enable_nccl_nvls", False))
    os.environ.setdefault("NCCL_CUMEM_ENABLE", str(int(symm)))
    os.environ.setdefault("NCCL_NVLS_ENABLE", str(int(nvls or symm)))
    os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = "8"


def model_facts(server_args):
    """Numbers the scheduler reports, derived deterministically from the args."""
    mem = server_args.get("mem_fraction_static", 0.88)
    kv_tokens = server_args.get("max_total_tokens") or int(470000 * float(mem) / 0.88) * max(
        1, int(server_args.get("tp_size", 1))
    )
    context_len = server_args.get("context_length") or 32768
    return {
        "max_total_num_tokens": int(kv_tokens),
        "context_len": int(context_len),
        "max_req_input_len": int(min(context_len - 1, kv_tokens - 1)),
        "chunked_prefill_size": int(server_args.get("chunked_prefill_size", 8192)),
        "max_prefill_tokens": int(server_args.get("max_prefill_tokens", 16384)),
        "max_running_requests": int(server_args.get("max_running_requests") or min(4096, kv_tokens // 2)),
    }


def guess_architecture(model_path):
    name = (model_path or "").lower()
    for key, arch in (
        ("deepseek", "DeepseekV3ForCausalLM"),
        ("qwen3", "Qwen3ForCausalLM"),
        ("qwen", "Qwen2ForCausalLM"),
        ("mistral", "MistralForCausalLM"),
        ("gemma", "Gemma3ForCausalLM"),
        ("kimi", "DeepseekV3ForCausalLM"),
    ):
        if key in name:
            return arch
    return "LlamaForCausalLM"


def _cuda_graph_disabled(server_args):
    return bool(server_args.get("disable_cuda_graph", False)) or (
        server_args.get("cuda_graph_backend_decode") == "disabled"
    )


class Engine:
    def __init__(self, server_args, cfg):
        self.args = server_args
        self.cfg = cfg
        self.children = []  # the workers the server tracks and kills
        self.escaped = None  # SGLANG_SIM_SETSID_WORKER's worker, deliberately untracked
        self.escaped_pid = None
        self.crash_mode = cfg.crash_during_load is not None
        self.facts = model_facts(server_args)

    # -- signals during the launch phase ---------------------------------

    def launch_phase_sigquit_handler(self, signum=None, frame=None):
        logger.error("Received sigquit from a child process. It usually means the child failed.")
        if self.crash_mode:
            self.kill_children()
            flush_std()
            stamp("crash_exit")
            os._exit(self.cfg.crash_exit_code)
        self.kill_children()
        kill_process_tree(os.getpid(), include_parent=True)

    # -- children ---------------------------------------------------------

    def _spawn(self, name, module, argv, env, with_ctl=True, with_ready=True):
        ready_r = ready_w = ctl_r = ctl_w = -1
        fds = []
        if with_ready:
            ready_r, ready_w = os.pipe()
            fds.append(ready_w)
        if with_ctl:
            ctl_r, ctl_w = os.pipe()
            fds.append(ctl_r)
        cmd = [sys.executable, "-m", module] + argv
        if with_ready:
            cmd += ["--ready-fd", str(ready_w)]
        if with_ctl:
            cmd += ["--ctl-fd", str(ctl_r)]
        popen = subprocess.Popen(cmd, env=env, pass_fds=fds, close_fds=True)
        for fd in fds:
            os.close(fd)
        child = Child(name, popen, ready_r, ctl_w)
        self.children.append(child)
        return child

    def launch(self):
        """Start every worker and block until all have loaded."""
        args, cfg = self.args, self.cfg
        signal.signal(signal.SIGQUIT, self.launch_phase_sigquit_handler)
        set_envs_and_config(args)
        t0 = time.monotonic()
        tp_size = max(1, int(args.get("tp_size", 1)))
        pp_size = max(1, int(args.get("pp_size", 1)))
        base_env = dict(os.environ)
        common = [
            "--parent", str(os.getpid()),
            "--t0", repr(t0),
            "--load-seconds", repr(cfg.load_seconds),
            "--log-fd", str(cfg.log_fd),
            "--log-level", str(args.get("log_level", "info")),
            "--arch", guess_architecture(args.get("model_path")),
            "--kv-tokens", str(self.facts["max_total_num_tokens"]),
            "--context-len", str(self.facts["context_len"]),
            "--chunked-prefill-size", str(self.facts["chunked_prefill_size"]),
            "--max-prefill-tokens", str(self.facts["max_prefill_tokens"]),
            "--max-running-requests", str(self.facts["max_running_requests"]),
        ]
        bs = args.get("cuda_graph_bs_decode")
        if bs:
            common += ["--cuda-graph-bs", ",".join(str(int(b)) for b in bs)]
        if _cuda_graph_disabled(args):
            common.append("--no-cuda-graph")
        if cfg.crash_during_load is not None:
            common += ["--crash-at", repr(cfg.crash_during_load)]
        for pp in range(pp_size):
            for tp in range(tp_size):
                if pp_size > 1:
                    prefix, title = f" PP{pp} TP{tp}", f"sglang::scheduler_PP{pp}_TP{tp}"
                else:
                    prefix, title = f" TP{tp}", f"sglang::scheduler_TP{tp}"
                env = base_env
                if cfg.worker_env and tp == cfg.worker_env_rank and pp == 0:
                    env = dict(base_env)
                    env.update(cfg.worker_env)
                argv = common + ["--title", title, "--prefix", prefix, "--tp-rank", str(tp), "--pp-rank", str(pp)]
                self._spawn(title.split("::", 1)[1], "sglang.srt.scheduler", argv, env)
        self._spawn(
            "detokenizer", "sglang.srt.detokenizer_manager", ["--parent", str(os.getpid())], base_env
        )
        if cfg.setsid_worker:
            esc = self._spawn(
                "escaped",
                "sglang.srt.scheduler",
                ["--role", "escaped", "--title", "sglang::escaped_worker", "--parent", str(os.getpid()),
                 "--log-fd", str(cfg.log_fd)],
                base_env,
                with_ctl=False,
            )
            self.children.remove(esc)
            self.escaped, self.escaped_pid = esc, esc.pid
        self._wait_ready(self.children + ([self.escaped] if self.escaped else []))

    def _wait_ready(self, children):
        pending = {c.ready_fd: c for c in children if c.ready_fd >= 0}
        while pending:
            try:
                readable, _, _ = select.select(list(pending), [], [])
            except InterruptedError:
                continue
            for fd in readable:
                data = os.read(fd, 64)
                child = pending.pop(fd)
                os.close(fd)
                child.ready_fd = -1
                if data.startswith(b"ready"):
                    continue
                # The child exited without reporting ready.
                rank = child.name
                logger.error(f"{rank} is dead. Please check if there are relevant logs.")
                logger.raw(
                    "Traceback (most recent call last):\n"
                    '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
                    "  File \"sglang/launch_server.py\", line 14, in <module>\n"
                    "    launch_server(server_args)\n"
                    f"EOFError: {rank} scheduler is dead\n"
                )
                self.kill_children()
                flush_std()
                stamp("crash_exit")
                os._exit(self.cfg.crash_exit_code if self.crash_mode else 1)

    def kill_children(self):
        """SIGKILL the worker tree, leaving the escaped worker behind on
        purpose: it stands for a process the server lost track of."""
        skip = {self.escaped_pid} if self.escaped_pid else set()
        kill_process_tree(os.getpid(), include_parent=False, skip_pids=skip)

    def dead_child(self):
        """The first worker that has exited, or None."""
        for child in self.children:
            if child.popen.poll() is not None:
                return child
        return None
