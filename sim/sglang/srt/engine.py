"""Start the server's worker processes and wait for the model load.

Mirrors SGLang's Engine._launch_subprocesses: set the process-wide environment
SGLang sets, start one scheduler per TP (and PP) rank and a detokenizer, and
block until every rank reports it has loaded. A rank that fails during the load
sends SIGQUIT, and the launch-phase handler takes the whole tree down before the
HTTP port is ever bound.

Multi-node (--nnodes N --node-rank R): each node starts only its share of the
ranks (_calculate_rank_ranges: tp_size / nnodes TP ranks per node, numbered
from R * tp_size / nnodes), and only node 0 a detokenizer. The ranks meet at
rank 0's store before loading (dist.py). SGLang also reads
SGLANG_BLOCK_NONZERO_RANK_CHILDREN and SGLANG_DP_RANK here; the sim does not
model the Engine API or data parallelism, so it leaves them alone.
"""

import os
import random
import select
import signal
import socket
import subprocess
import sys
import time

from sglang.srt.sglang_tables import ENGINE, perform
from sglang.srt.sim_hooks import stamp
from sglang.srt.utils import flush_std, kill_process_tree, logger, scheduler_prefix


class Child:
    def __init__(self, name, popen, ready_fd, ctl_fd):
        self.name = name
        self.popen = popen
        self.ready_fd = ready_fd
        self.ctl_fd = ctl_fd
        self.keep_ready = False
        self.link_fd = -1  # rank 0 of several nodes: "hang" comes here after ready

    @property
    def pid(self):
        return self.popen.pid


def set_envs_and_config(server_args):
    """The process-wide environment SGLang sets before starting its children,
    which therefore differs from the launcher's: the rows of
    _set_envs_and_config (srt/entrypoints/engine.py) in the generated table
    for the sim's version, performed by sglang_tables.perform. At main
    382343f86 these are NCCL_CUMEM_ENABLE, NCCL_NVLS_ENABLE (when unset, or
    under --enable-symm-mem / --enable-nccl-nvls), NCCL_GRAPH_MIXING_SUPPORT=0
    (--dcp-size > 1), CUDA_DEVICE_MAX_CONNECTIONS=8, TRTLLM_ENABLE_PDL=1
    unless "0", CUTE_DSL_LOG_LEVEL/CUTE_DSL_LOG_TO_CONSOLE when unset, and
    SGLANG_RUN_ID (no CUDA_MODULE_LOADING since SGLang PR #35711).

    Then, as _set_envs_and_config calls set_prometheus_multiproc_dir
    (srt/utils/common.py) under --enable-metrics: PROMETHEUS_MULTIPROC_DIR,
    a temporary directory, when unset.

    Not modelled: NCCL_CUMEM_ENABLE/NCCL_MNNVL_ENABLE=1 on multi-node MNNVL
    fabric devices (GB200/GB300), which the sim cannot detect
    (is_mnnvl_fabric_device is False here).
    """
    perform(
        ENGINE,
        ("_set_envs_and_config",),
        {"server_args": server_args, "time": time, "random": random, "is_mnnvl_fabric_device": lambda: False},
    )
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


def calculate_rank_ranges(nnodes, pp_size, tp_size, node_rank):
    """engine.py's _calculate_rank_ranges: the PP and TP ranks of one node."""
    pp_size_per_node = max(pp_size // nnodes, 1)
    nnodes_per_pp_rank = max(nnodes // pp_size, 1)
    pp_range = range(
        pp_size_per_node * (node_rank // nnodes_per_pp_rank),
        pp_size_per_node * (node_rank // nnodes_per_pp_rank + 1),
    )
    tp_size_per_node = tp_size // nnodes_per_pp_rank
    tp_range = range(
        tp_size_per_node * (node_rank % nnodes_per_pp_rank),
        tp_size_per_node * (node_rank % nnodes_per_pp_rank + 1),
    )
    return pp_range, tp_range


def _free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def store_address(args):
    """Where the ranks meet (distributed/bootstrap.py _resolve_dist_init_method):
    --dist-init-addr, else --host (or 127.0.0.1) with nccl_port, which is
    --nccl-port or a free port of this node (PortArgs.init_new). Without
    --dist-init-addr every node therefore waits at its own address."""
    addr = args.get("dist_init_addr")
    if addr:
        return str(addr)
    host = args.get("host") or "127.0.0.1"
    port = args.get("nccl_port") or _free_port()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def check_server_args(args):
    """What validation_hook.py's check_server_args asserts about nodes; an
    AssertionError ends the launch with its traceback (exit 1). SGLang does
    not check --node-rank < --nnodes."""
    nnodes = max(1, int(args.get("nnodes", 1) or 1))
    tp = max(1, int(args.get("tp_size", 1) or 1))
    pp = max(1, int(args.get("pp_size", 1) or 1))
    msg = None
    if (tp * pp) % nnodes != 0:
        msg = "tp_size must be divisible by number of nodes"
    elif int(args.get("dp_size", 1) or 1) > 1 and nnodes != 1:
        msg = "multi-node data-parallel replicas are not supported; use attention DP (--attn-dp-size) across nodes"
    if msg is None:
        return
    logger.raw(
        "Traceback (most recent call last):\n"
        '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "sglang/launch_server.py", line 14, in <module>\n'
        "    launch_server(server_args)\n"
        '  File "sglang/srt/entrypoints/engine.py", line 1021, in _launch_subprocesses\n'
        "    server_args.check_server_args()\n"
        '  File "sglang/srt/arg_groups/validation_hook.py", line 92, in check_server_args\n'
        f"AssertionError: {msg}\n"
    )
    flush_std()
    os._exit(1)


class Engine:
    def __init__(self, server_args, cfg):
        self.args = server_args
        self.cfg = cfg
        self.children = []  # the workers the server tracks and kills
        self.escaped = None  # SGLANG_SIM_SETSID_WORKER's worker, deliberately untracked
        self.startup_time = None  # SGLang's startup_time, once every rank has loaded (rank 0 only)
        self.escaped_pid = None
        self.crash_mode = cfg.crash_during_load is not None
        self.facts = model_facts(server_args)
        self.nnodes = max(1, int(server_args.get("nnodes", 1) or 1))
        self.node_rank = int(server_args.get("node_rank", 0) or 0)
        self.busy = False

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

    def _spawn_untracked(self, role, title, env):
        """A scheduler process in a role of its own (the setsid worker, the
        daemon): it gets no control pipe and is not in self.children, so the
        watchdog (crashed_child) does not watch it."""
        child = self._spawn(
            role,
            "sglang.srt.scheduler",
            ["--role", role, "--title", title, "--parent", str(os.getpid()), "--log-fd", str(self.cfg.log_fd)],
            env,
            with_ctl=False,
        )
        self.children.remove(child)
        return child

    def launch(self):
        """Start every worker and block until all have loaded."""
        args, cfg = self.args, self.cfg
        signal.signal(signal.SIGQUIT, self.launch_phase_sigquit_handler)
        set_envs_and_config(args)
        check_server_args(args)
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
        if self.nnodes > 1:
            common += [
                "--world-size", str(tp_size * pp_size),
                "--store", store_address(args),
                "--dist-timeout", repr(float(args.get("dist_timeout") or 0)),
            ]
        sizes = {
            "tp": tp_size,
            "pp": pp_size,
            "ep": int(args.get("ep_size", 1) or 1),
            "attn_cp": int(args.get("attn_cp_size", 1) or 1),
            "moe_dp": int(args.get("moe_dp_size", 1) or 1),
        }
        index = 0
        pp_range, tp_range = calculate_rank_ranges(self.nnodes, pp_size, tp_size, self.node_rank)
        for pp in pp_range:
            for tp in tp_range:
                prefix, title = scheduler_prefix(tp, pp, sizes)
                env = base_env
                if cfg.worker_env and tp == cfg.worker_env_rank and pp == 0:
                    env = dict(base_env)
                    env.update(cfg.worker_env)
                argv = common + ["--title", title, "--prefix", prefix, "--tp-rank", str(tp), "--pp-rank", str(pp),
                                 "--global-rank", str(tp_size * pp + tp)]
                if index == 0 and cfg.crash_during_load is not None:
                    # The node's first rank fails (rank 0 on a single node).
                    argv += ["--crash-at", repr(cfg.crash_during_load)]
                # The watchdog's names: scheduler_0, scheduler_1, ... in launch order.
                child = self._spawn(f"scheduler_{index}", "sglang.srt.scheduler", argv, env)
                # Rank 0 of several nodes keeps its ready pipe open to say it hung.
                child.keep_ready = self.nnodes > 1 and tp == 0 and pp == 0
                index += 1
        if self.node_rank == 0:
            # Nodes >= 1 run no tokenizer or detokenizer (engine.py).
            self._spawn(
                "detokenizer", "sglang.srt.detokenizer_manager", ["--parent", str(os.getpid())], base_env
            )
        if cfg.setsid_worker:
            esc = self._spawn_untracked("escaped", "sglang::escaped_worker", base_env)
            self.escaped, self.escaped_pid = esc, esc.pid
        untracked = [self.escaped] if self.escaped else []
        if cfg.daemon:
            untracked.append(self._spawn_untracked("daemon", "sglang::daemon", base_env))
        self._wait_ready(self.children + untracked)
        if self.node_rank == 0:
            from sglang.srt import startup_time

            e2e = time.monotonic() - t0
            self.startup_time = startup_time.build(
                args, cfg, e2e, e2e, _prefill_graph_backend(args), _cuda_graph_disabled(args))
            logger.info(startup_time.log_line(self.startup_time))

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
                if data.startswith(b"ready") and child.keep_ready:
                    child.link_fd = fd
                    child.ready_fd = -1
                    continue
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

    def tell(self, child, msg):
        try:
            os.write(child.ctl_fd, msg.encode() + b"\n")
        except OSError:
            pass

    def set_busy(self, busy):
        """Multi-node: tell rank 0's scheduler whether a request or a health
        check generation is in flight, which it forwards to the other nodes
        (what a dying peer then does depends on it: see dist.py)."""
        if self.nnodes == 1 or busy == self.busy:
            return
        self.busy = busy
        scheds = self.schedulers()
        if scheds:
            self.tell(scheds[0], "busy" if busy else "idle")

    def crash_first_rank(self):
        """SGLANG_SIM_CRASH_AFTER_READY: the node's first rank fails in a
        forward, logs its traceback and SIGQUITs the server."""
        scheds = self.schedulers()
        if scheds:
            self.tell(scheds[0], "crash")

    def schedulers_alive(self):
        return [c for c in self.schedulers() if c.popen.poll() is None]
