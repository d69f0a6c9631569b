package systemd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Inside the machine, the test's share (the sglaunch binary, profiles,
// interpreters, event files) is bound here: not under /tmp, which the
// machine and PrivateTmp= units replace.
const shareDir = "/srv/sglaunch-e2e"

// machine is a systemd booted as PID 1 in namespaces of its own.
type machine struct {
	pid    int    // systemd, as the host sees it
	cgroup string // host path of the cgroup2 subtree it runs in
	dir    string // host scratch directory: share/, layer/, boot.log
	done   chan struct{}
	cmd    *exec.Cmd
}

// bootScript runs as PID 1 of the new namespaces, then becomes systemd.
// Every mount is made in the machine's own mount namespace (private
// propagation), so the host sees none of them.
const bootScript = `set -eu
mount --make-rprivate /
mount -t tmpfs -o mode=0755 e2e-layer "$LAYER"
mkdir "$LAYER/upper" "$LAYER/work" "$LAYER/root"
# The host's root is the overlay's read-only lower layer: writes land in the tmpfs.
mount -t overlay overlay -o "lowerdir=/,upperdir=$LAYER/upper,workdir=$LAYER/work" "$LAYER/root"
R=$LAYER/root
mount -t proc proc "$R/proc"
# Kernel settings stay the host's: /proc/sys read-only (systemd-sysctl then skips).
mount --bind "$R/proc/sys" "$R/proc/sys"
mount -o remount,bind,ro "$R/proc/sys"
if [ -e "$R/proc/sysrq-trigger" ]; then
	mount --bind "$R/proc/sysrq-trigger" "$R/proc/sysrq-trigger"
	mount -o remount,bind,ro "$R/proc/sysrq-trigger"
fi
mount -t sysfs -o ro sysfs "$R/sys"
mount -t cgroup2 cgroup2 "$R/sys/fs/cgroup"
mount -t tmpfs -o mode=1777 e2e-tmp "$R/tmp"
mount -t tmpfs -o mode=0755 e2e-run "$R/run"
# A /dev of its own with the pseudo devices only: nothing written there
# (journald's /dev/log link) reaches the host's devtmpfs.
mount -t tmpfs -o mode=0755 e2e-dev "$R/dev"
for d in null zero full random urandom tty; do
	touch "$R/dev/$d"
	mount --bind "/dev/$d" "$R/dev/$d"
done
mkdir "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"
ln -s pts/ptmx "$R/dev/ptmx"
mount -t tmpfs -o mode=1777 e2e-shm "$R/dev/shm"
ln -s /proc/self/fd "$R/dev/fd"
mkdir -p "$R$SHARE_INSIDE"
mount --bind "$SHARE" "$R$SHARE_INSIDE"
echo "$MACHINE_ID" > "$R/etc/machine-id"
echo sglaunch-e2e > "$R/etc/hostname"
mkdir -p "$R/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$R/etc/systemd/journald.conf.d/e2e.conf"
# A minimal target: sysinit (journald) and sockets, none of the host's services.
printf '[Unit]\nDescription=sglaunch e2e\nRequires=sysinit.target sockets.target\nAfter=sysinit.target sockets.target\nAllowIsolate=yes\n' > "$R/etc/systemd/system/sglaunch-e2e.target"
cd "$R"
mkdir .oldroot
pivot_root . .oldroot
cd /
umount -l /.oldroot
rmdir /.oldroot
# Capabilities that would reach past the namespaces (modules, the clock,
# raw I/O, reboot, MAC and audit policy) are gone, so units that need
# them skip themselves.
exec setpriv --bounding-set -sys_module,-sys_time,-sys_rawio,-sys_boot,-mac_admin,-mac_override,-audit_control \
	env -i container=sglaunch-e2e /lib/systemd/systemd --unit=sglaunch-e2e.target
`

// boot starts systemd in new namespaces and waits until it has booted.
// The error says why it could not.
func boot(dir string) (*machine, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("booting systemd in new namespaces needs root (run the suite as root, as CI does)")
	}
	for _, tool := range []string{"nsenter", "setpriv", "mount", "pivot_root", "/lib/systemd/systemd", "systemctl", "journalctl"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s: %w (Debian: systemd, util-linux and mount)", tool, err)
		}
	}
	root, err := cgroup2Root()
	if err != nil {
		return nil, err
	}
	m := &machine{dir: dir, done: make(chan struct{})}
	m.cgroup = filepath.Join(root, fmt.Sprintf("sglaunch-e2e-%d", os.Getpid()))
	if err := os.Mkdir(m.cgroup, 0o755); err != nil {
		return nil, fmt.Errorf("make a cgroup for the machine: %w", err)
	}
	for _, d := range []string{"share", "layer"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	// The share is read by the services' own accounts too.
	if err := os.Chmod(filepath.Join(dir, "share"), 0o755); err != nil {
		return nil, err
	}
	cg, err := os.Open(m.cgroup)
	if err != nil {
		return nil, err
	}
	defer cg.Close()
	logf, err := os.Create(filepath.Join(dir, "boot.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	cmd := exec.Command("/bin/sh", "-c", bootScript)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LAYER=" + filepath.Join(dir, "layer"), "SHARE=" + filepath.Join(dir, "share"),
		"SHARE_INSIDE=" + shareDir, "MACHINE_ID=" + hex.EncodeToString(id)}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWCGROUP,
		UseCgroupFD: true,
		CgroupFD:    int(cg.Fd()),
		Setsid:      true,
		// The machine dies with the test binary, whatever ends it.
		Pdeathsig: syscall.SIGKILL,
	}
	m.cmd = cmd
	// Pdeathsig fires when the forking thread exits (golang/go#27505):
	// that thread stays locked, in this goroutine, until systemd exits.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			_ = cmd.Wait()
		}
		close(m.done)
	}()
	if err := <-started; err != nil {
		_ = os.Remove(m.cgroup)
		return nil, fmt.Errorf("start the machine: %w", err)
	}
	m.pid = cmd.Process.Pid
	if err := m.waitBooted(); err != nil {
		m.shutdown()
		return nil, err
	}
	return m, nil
}

// cgroup2Root is the host path of the cgroup2 directory this process
// runs in: the machine's cgroup goes below it.
func cgroup2Root() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var path string
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			path = p
		}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(mounts))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		for i, x := range f {
			if x == "-" && i+1 < len(f) && f[i+1] == "cgroup2" && f[3] == "/" {
				return filepath.Join(f[4], path), nil
			}
		}
	}
	return "", errors.New("no cgroup2 hierarchy is mounted on this host (systemd needs one for its units; mount one, e.g. on /sys/fs/cgroup/unified)")
}

// bootTimeout bounds the boot: generous, for a loaded 2-core machine.
const bootTimeout = 90 * time.Second

func (m *machine) waitBooted() error {
	deadline := time.Now().Add(bootTimeout)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-m.done:
			return fmt.Errorf("systemd exited while booting: %s\nboot log:\n%s", m.cmd.ProcessState, m.bootLog())
		default:
		}
		out, _, _ := m.exec(context.Background(), nil, "systemctl", "is-system-running")
		last = strings.TrimSpace(out)
		switch last {
		case "running", "degraded":
			if _, errOut, code := m.exec(context.Background(), nil, "journalctl", "--sync"); code != 0 {
				return fmt.Errorf("journald does not answer: %s", errOut)
			}
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	failed, _, _ := m.exec(context.Background(), nil, "systemctl", "--failed", "--no-pager")
	return fmt.Errorf("systemd did not finish booting within %v (last state %q)\nfailed units:\n%s\nboot log:\n%s", bootTimeout, last, failed, m.bootLog())
}

func (m *machine) bootLog() string {
	b, _ := os.ReadFile(filepath.Join(m.dir, "boot.log"))
	return string(b)
}

// shutdown kills the machine (SIGKILL to its PID 1 ends every process of
// its pid namespace), waits for it, and removes its cgroups.
func (m *machine) shutdown() {
	_ = syscall.Kill(m.pid, syscall.SIGKILL)
	select {
	case <-m.done:
	case <-time.After(bootTimeout):
	}
	// The namespace's processes die with its init; their cgroups empty.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && removeTree(m.cgroup) != nil {
		time.Sleep(100 * time.Millisecond)
	}
}

// removeTree removes a cgroup and its children, deepest first.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(dir)
}

// share is the host path of a file under shareDir.
func (m *machine) share(inside string) string {
	rel, ok := strings.CutPrefix(inside, shareDir)
	if !ok {
		panic("not under " + shareDir + ": " + inside)
	}
	return filepath.Join(m.dir, "share", rel)
}

// rootPath is the host path of a file inside the machine (its overlay,
// through /proc/PID/root).
func (m *machine) rootPath(inside string) string {
	return filepath.Join("/proc", strconv.Itoa(m.pid), "root", inside)
}

// exec runs argv inside the machine's namespaces with env ("" values
// of the host's environment are not passed).
func (m *machine) exec(ctx context.Context, env []string, argv ...string) (stdout, stderr string, code int) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	args := append([]string{"-t", strconv.Itoa(m.pid), "-m", "-u", "-i", "-n", "-p", "-C", "--"}, argv...)
	cmd := exec.CommandContext(ctx, "nsenter", args...)
	if env == nil {
		env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"}
	}
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if err != nil {
		code = -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			errb.WriteString(err.Error())
		}
	}
	return out.String(), errb.String(), code
}
