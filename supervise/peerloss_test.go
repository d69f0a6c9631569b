package supervise

import (
	"strings"
	"testing"
)

func TestLostPeer(t *testing.T) {
	long := "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:554] Connection closed by peer [" + strings.Repeat("a", 300) + "]"
	for _, c := range []struct {
		name string
		tail []string
		want string
	}{
		{"gloo closed, torch 1.13 as the sim prints it", []string{
			"  File \"/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py\", line 2974, in broadcast",
			"    work.wait()",
			"RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] Connection closed by peer [10.213.206.2]:56408",
			"[2026-12-02 15:50:50] SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
		}, "gloo: Connection closed by peer [10.213.206.2]:56408"},
		{"gloo reset", []string{"RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:538] Read error [10.0.0.3]:41000: Connection reset by peer"},
			"gloo: Read error [10.0.0.3]:41000: Connection reset by peer"},
		{"the last of several ranks' lines", []string{
			"RuntimeError: [/g/gloo/transport/tcp/pair.cc:554] Connection closed by peer [10.0.0.2]:1",
			"RuntimeError: [/g/gloo/transport/tcp/pair.cc:554] Connection closed by peer [10.0.0.4]:2",
		}, "gloo: Connection closed by peer [10.0.0.4]:2"},
		{"NCCL remote error through torch", []string{"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error, NCCL version 2.21.5"},
			"NCCL: remote process exited or there was a network error, NCCL version 2.21.5"},
		{"NCCL socket warning", []string{"node1:123:456 [0] misc/socket.cc:58 NCCL WARN socketProgress: Connection closed by remote peer node2<41234>"},
			"NCCL: socketProgress: Connection closed by remote peer node2<41234>"},
		{"a crash of its own", []string{"torch.OutOfMemoryError: CUDA out of memory.", "[2026-12-02] Received sigquit from a child process. It usually means the child failed."}, ""},
		{"the words without gloo's source path", []string{"ssh: Connection closed by peer 10.0.0.2"}, ""},
		{"a gloo path with no message", []string{"/gloo/transport/tcp/pair.cc"}, ""},
		{"bounded", []string{long}, "gloo: Connection closed by peer [" + strings.Repeat("a", maxLostPeer-len("gloo: Connection closed by peer [")) + "…"},
		{"nothing", nil, ""},
	} {
		if got := lostPeer(c.tail); got != c.want {
			t.Errorf("%s: lostPeer = %q, want %q", c.name, got, c.want)
		}
	}
}
