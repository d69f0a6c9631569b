package hostprobe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNCCLConf(t *testing.T) {
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc-nccl.conf")
	old := etcNCCLConf
	etcNCCLConf = etc
	t.Cleanup(func() { etcNCCLConf = old })
	conf := filepath.Join(dir, "my.conf")
	os.WriteFile(conf, []byte("# tuning\nNCCL_ALGO=Tree\nNCCL_DEBUG=WARN\ngarbage\nNCCL_DEBUG=INFO\n"), 0o644)
	os.WriteFile(etc, []byte("NCCL_IB_DISABLE=1\nNCCL_DEBUG=TRACE\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".nccl.conf"), []byte("NCCL_SOCKET_IFNAME=eth0\n"), 0o644)

	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"conf file var", map[string]string{"NCCL_CONF_FILE": conf, "NCCL_ALGO": "Ring"}, "NCCL_DEBUG=WARN@my.conf NCCL_IB_DISABLE=1@etc-nccl.conf"},
		{"home conf", map[string]string{"HOME": dir}, "NCCL_SOCKET_IFNAME=eth0@.nccl.conf NCCL_IB_DISABLE=1@etc-nccl.conf NCCL_DEBUG=TRACE@etc-nccl.conf"},
		{"missing file", map[string]string{"NCCL_CONF_FILE": filepath.Join(dir, "nope")}, "NCCL_IB_DISABLE=1@etc-nccl.conf NCCL_DEBUG=TRACE@etc-nccl.conf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := NCCLConf(tt.env)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name+"="+e.Value+"@"+filepath.Base(e.File))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}
