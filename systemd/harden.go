package systemd

import (
	"path/filepath"
	"strings"
)

// hardening is the [Service] sandboxing of `sglaunch unit --harden`: the
// options a CUDA server tolerates, each with its reason, since the ones
// that break it are the first a reader would reach for. systemd-analyze
// security rates the result 2.4 (the plain unit: 9.6).
func hardening(home string) string {
	var b strings.Builder
	w := func(lines ...string) {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	w("",
		"# Hardening (sglaunch unit --harden): what a CUDA server tolerates. Left out on",
		"# purpose: PrivateDevices= (it hides /dev/nvidia*), MemoryDenyWriteExecute=",
		"# (CUDA, Triton and PyTorch compile kernels into writable, executable memory),",
		"# ProcSubset=pid (the driver is read through /proc/driver/nvidia), PrivateNetwork=",
		"# (the server serves, and NCCL talks to the other nodes), PrivateUsers= (the",
		"# device nodes belong to the host's root and video group).",
		"# No setuid helper gains privileges. CUDA's own nvidia-modprobe is one: load",
		"# nvidia-uvm and make its device nodes at boot (nvidia-persistenced, or",
		"# `nvidia-modprobe -u -c=0` in a boot unit).",
		"NoNewPrivileges=yes",
		"# The OS is read-only; the server writes its State/Cache/RuntimeDirectory,",
		"# /tmp, /dev/shm (NCCL's shared memory) and what ReadWritePaths= names.",
		"ProtectSystem=strict",
		"# Homes stay readable (a pyenv or venv interpreter, a Hugging Face cache), not",
		"# writable.",
		"ProtectHome=read-only",
	)
	if home != "/" && home != "/nonexistent" && filepath.IsAbs(home) && !strings.ContainsAny(home, " \t\n\"'\\") {
		h := strings.ReplaceAll(home, "%", "%%")
		w("# Except the JIT caches (Triton, FlashInfer, Hugging Face, CUDA's ComputeCache),",
			"# which a load would otherwise rebuild every time; a missing one is skipped.",
			"ReadWritePaths=-"+h+"/.cache -"+h+"/.triton -"+h+"/.nv")
	}
	w("# A /tmp of its own: SGLang's ZMQ sockets and temporary files. (CUDA MPS keeps",
		"# its pipes in /tmp: an MPS deployment needs PrivateTmp=no.)",
		"PrivateTmp=yes",
		"# SysV IPC and message queues of its own. CUDA IPC handles and NCCL's /dev/shm",
		"# segments pass between the service's own processes, which share these.",
		"PrivateIPC=yes",
		"# Mounts stay inside the service.",
		"PrivateMounts=yes",
		"# /proc/sys and /sys read-only: NCCL and CUDA read them, never write.",
		"ProtectKernelTunables=yes",
		"# No module loading: the NVIDIA modules are loaded at boot.",
		"ProtectKernelModules=yes",
		"# Neither the kernel log, the cgroup tree, the clock nor the hostname are the",
		"# server's to change.",
		"ProtectKernelLogs=yes",
		"ProtectControlGroups=yes",
		"ProtectClock=yes",
		"ProtectHostname=yes",
		"# Other users' processes are hidden; /proc/driver/nvidia is not (that would be",
		"# ProcSubset=pid).",
		"ProtectProc=invisible",
		"# Neither sglaunch nor SGLang makes namespaces, real-time threads, setuid files",
		"# or changes its execution domain.",
		"RestrictNamespaces=yes",
		"RestrictRealtime=yes",
		"RestrictSUIDSGID=yes",
		"LockPersonality=yes",
		"# HTTP and NCCL's sockets (AF_INET, AF_INET6), ZMQ and CUDA IPC (AF_UNIX),",
		"# network interface discovery and RDMA (AF_NETLINK).",
		"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
		"SystemCallArchitectures=native",
		"# System calls no CUDA server makes. Anything else a driver needs stays allowed,",
		"# and a refused call fails with EPERM instead of killing the server.",
		"SystemCallFilter=~@clock @cpu-emulation @module @mount @obsolete @raw-io @reboot @swap",
		"SystemCallErrorNumber=EPERM",
		"# No capabilities: LimitMEMLOCK= above gives NCCL and CUDA pinned memory without",
		"# CAP_IPC_LOCK, and files are the account's own.",
		"CapabilityBoundingSet=",
		"AmbientCapabilities=",
		"# New files are not world-readable.",
		"UMask=0027",
		"# Devices: the standard pseudo devices (/dev/null, /dev/urandom, ...) and the",
		"# NVIDIA classes of /proc/devices, matched when the unit starts, so nodes made",
		"# later by the driver are covered; a class this host lacks matches nothing.",
		"DevicePolicy=closed",
		"# The GPUs /dev/nvidia0... and /dev/nvidiactl (major 195; named nvidia-frontend",
		"# by older drivers), unified memory /dev/nvidia-uvm, MIG and IMEX capabilities",
		"# /dev/nvidia-caps*, NVSwitch and NVLink.",
		"DeviceAllow=char-nvidia rw",
		"DeviceAllow=char-nvidiactl rw",
		"DeviceAllow=char-nvidia-frontend rw",
		"DeviceAllow=char-nvidia-uvm rw",
		"DeviceAllow=char-nvidia-caps rw",
		"DeviceAllow=char-nvidia-caps-imex-channels rw",
		"DeviceAllow=char-nvidia-nvswitch rw",
		"DeviceAllow=char-nvidia-nvlink rw",
		"# GPUDirect RDMA for NCCL over InfiniBand or RoCE (/dev/infiniband/uverbs*).",
		"DeviceAllow=char-infiniband_verbs rw",
	)
	return b.String()
}
