"""Start the server's worker processes and wait for the model load.

Mirrors SGLang's Engine._launch_subprocesses: set the process-wide environment
SGLang sets, start one scheduler per TP (and PP) rank and a detokenizer, and
block until every rank reports it has loaded. A rank that fails during the load
sends SIGQUIT, and the launch-phase handler takes the whole tree down before the
HTTP port is ever bound.

SGLang also reads SGLANG_BLOCK_NONZERO_RANK_CHILDREN and SGLANG_DP_RANK here; the
sim does not model multi-node or data parallelism, so it leaves them alone.
"""

import os
import random
import select
import signal
import subprocess
import sys
import time

from sglang.srt.sim_hooks import stamp
from sglang.srt.utils import flush_std, kill_process_tree, logger, scheduler_prefix


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
    which therefore differs from the launcher's (_set_envs_and_config in
    srt/entrypoints/engine.py @ dd458f32):

      NCCL_CUMEM_ENABLE           =int(--enable-symm-mem), when unset or under --enable-symm-mem
      NCCL_NVLS_ENABLE            =int(--enable-nccl-nvls or --enable-symm-mem), when unset or either flag
      NCCL_GRAPH_MIXING_SUPPORT   =0 when --dcp-size > 1 (and unset, or --enable-symm-mem)
      CUDA_DEVICE_MAX_CONNECTIONS =8, always
      CUDA_MODULE_LOADING         =AUTO, always
      TRTLLM_ENABLE_PDL           =1 unless it is "0"
      CUTE_DSL_LOG_LEVEL          =30 when unset
      CUTE_DSL_LOG_TO_CONSOLE     =1 when unset
      SGLANG_RUN_ID               =sglang-run-<time>-<random>, always
      PROMETHEUS_MULTIPROC_DIR    a temporary directory, under --enable-metrics when unset

    Not modelled: NCCL_CUMEM_ENABLE/NCCL_MNNVL_ENABLE=1 on multi-node MNNVL
    fabric devices (GB200/GB300), which the sim cannot detect.
    """
    symm = bool(server_args.get("enable_symm_mem", False))
    nvls = bool(server_args.get("enable_nccl_nvls", False))
    if "NCCL_CUMEM_ENABLE" not in os.environ or symm:
        os.environ["NCCL_CUMEM_ENABLE"] = str(int(symm))
    if "NCCL_NVLS_ENABLE" not in os.environ or nvls or symm:
        os.environ["NCCL_NVLS_ENABLE"] = str(int(nvls or symm))
    if "NCCL_GRAPH_MIXING_SUPPORT" not in os.environ or symm:
        if int(server_args.get("dcp_size", 1) or 1) > 1:
            os.environ["NCCL_GRAPH_MIXING_SUPPORT"] = "0"
    os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = "8"
    os.environ["CUDA_MODULE_LOADING"] = "AUTO"
    if os.environ.get("TRTLLM_ENABLE_PDL", "1") != "0":
        os.environ["TRTLLM_ENABLE_PDL"] = "1"
    os.environ.setdefault("CUTE_DSL_LOG_LEVEL", "30")
    os.environ.setdefault("CUTE_DSL_LOG_TO_CONSOLE", "1")
    os.environ["SGLANG_RUN_ID"] = f"sglang-run-{time.time()}-{random.randint(0, 100000000)}"
    if server_args.get("enable_metrics", False) and "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        import tempfile

        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp()


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


def _prefill_graph_backend(server_args):
    """The prefill capture's backend: --cuda-graph-backend-prefill, else
    SGLang's generic default, breakable (server_args.py)."""
    if bool(server_args.get("disable_cuda_graph", False)):
        return "disabled"
    return str(server_args.get("cuda_graph_backend_prefill") or "breakable")


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
        # engine.py: a rank that fails during the load sends SIGQUIT; the
        # handler kills the whole tree, the server itself included, so the
        # server ends "killed by signal 9" (137).
        logger.error("Received sigquit from a child process. It usually means the child failed.")
        stamp("crash_exit")
        if self.cfg.crash_exit_code is not None:
            self.kill_children()
            flush_std()
            os._exit(self.cfg.crash_exit_code)
        self.kill_tree(include_parent=True)

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
        if args.get("cuda_graph_max_bs_decode"):
            common += ["--cuda-graph-max-bs", str(int(args.get("cuda_graph_max_bs_decode")))]
        bs = args.get("cuda_graph_bs_decode")
        if bs:
            common += ["--cuda-graph-bs", ",".join(str(int(b)) for b in bs)]
        if _cuda_graph_disabled(args):
            common.append("--no-cuda-graph")
        common += [
            "--log-format", cfg.log_format,
            "--decode-graph-backend", str(args.get("cuda_graph_backend_decode") or "full"),
            "--prefill-graph-backend", _prefill_graph_backend(args),
        ]
        pbs = args.get("cuda_graph_bs_prefill")
        if pbs:
            common += ["--prefill-graph-bs", ",".join(str(int(b)) for b in pbs)]
        spec = args.get("speculative_algorithm")
        if spec:
            common += [
                "--spec", str(spec),
                "--spec-steps", str(int(args.get("speculative_num_steps") or 3)),
                "--spec-topk", str(int(args.get("speculative_eagle_topk") or 1)),
                "--spec-draft-tokens", str(int(args.get("speculative_num_draft_tokens") or 4)),
            ]
        if cfg.crash_during_load is not None:
            common += ["--crash-at", repr(cfg.crash_during_load)]
        sizes = {
            "tp": tp_size,
            "pp": pp_size,
            "ep": int(args.get("ep_size", 1) or 1),
            "attn_cp": int(args.get("attn_cp_size", 1) or 1),
            "moe_dp": int(args.get("moe_dp_size", 1) or 1),
        }
        index = 0
        for pp in range(pp_size):
            for tp in range(tp_size):
                prefix, title = scheduler_prefix(tp, pp, sizes)
                env = base_env
                if cfg.worker_env and tp == cfg.worker_env_rank and pp == 0:
                    env = dict(base_env)
                    env.update(cfg.worker_env)
                argv = common + ["--title", title, "--prefix", prefix, "--tp-rank", str(tp), "--pp-rank", str(pp)]
                # The watchdog's names: scheduler_0, scheduler_1, ... in launch order.
                self._spawn(f"scheduler_{index}", "sglang.srt.scheduler", argv, env)
                index += 1
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
                # The child exited without reporting ready and without a
                # SIGQUIT (killed, say): engine.py's _wait_for_scheduler_ready
                # raises, launch_server.py's finally kills the children, and
                # Python exits 1 with the traceback.
                child.popen.wait()
                logger.raw(
                    "Traceback (most recent call last):\n"
                    '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
                    "  File \"sglang/launch_server.py\", line 14, in <module>\n"
                    "    launch_server(server_args)\n"
                    f"RuntimeError: Rank {child.name.rsplit('_', 1)[-1]} scheduler died during initialization "
                    f"(exit code: {child.popen.returncode}). If exit code is -9 (SIGKILL), a common cause is "
                    "the OS OOM killer. Run `dmesg -T | grep -i oom` to check.\n"
                )
                self.kill_children()
                flush_std()
                stamp("crash_exit")
                os._exit(self.cfg.crash_exit_code if self.cfg.crash_exit_code is not None else 1)

    def kill_tree(self, include_parent):
        """SGLang's kill_process_tree(os.getpid(), include_parent): SIGKILL
        the worker tree (and with include_parent the server itself, 137),
        leaving the escaped worker behind on purpose: it stands for a
        process the server lost track of."""
        skip = {self.escaped_pid} if self.escaped_pid else set()
        kill_process_tree(os.getpid(), include_parent=include_parent, skip_pids=skip)

    def kill_children(self):
        self.kill_tree(include_parent=False)

    def crashed_child(self):
        """The first worker that exited with a non-zero status (killed by a
        signal reads -N), as SGLang's SubprocessWatchdog checks: a worker
        that exited 0 is skipped. None if every worker lives or exited 0."""
        for child in self.children:
            code = child.popen.poll()
            if code is not None and code != 0:
                return child
        return None

    def schedulers(self):
        return [c for c in self.children if c.name.startswith("scheduler_")]

    def send_shutdown(self):
        """SGLang's ShutdownReq: every scheduler leaves its event loop and
        exits 0."""
        for child in self.schedulers():
            try:
                os.write(child.ctl_fd, b"shutdown\n")
            except OSError:
                pass

    def schedulers_alive(self):
        return [c for c in self.schedulers() if c.popen.poll() is None]
