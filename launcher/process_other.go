//go:build !linux

package launcher

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/plan"
)

// Running a server needs Linux: the parent-death signal, the child
// subreaper and /proc have no portable equivalent. On other systems the
// package builds (so that the commands that only read plans and records
// work) and Start fails with ErrUnsupported.

type process struct {
	pid      int
	pty      *os.File
	exited   chan struct{}
	state    *os.ProcessState
	exitedAt time.Time
}

func command(p *plan.Plan, _ string, _ bool) *exec.Cmd {
	return exec.Command(p.Argv[0], p.Argv[1:]...)
}

func waitExec(int, <-chan struct{}) {}

func startPiped(*exec.Cmd, *os.File, *os.File) (*process, error) { return nil, ErrUnsupported }
func startPTY(*exec.Cmd, *os.File) (*process, error)             { return nil, ErrUnsupported }
func pipe() (*os.File, *os.File, error)                          { return nil, nil, ErrUnsupported }
func (p *process) signalGroup(syscall.Signal) error              { return nil }
func (p *process) signalMain(syscall.Signal) error               { return nil }
func (p *process) done() bool                                    { return true }
func (p *process) resize(*os.File)                               {}

type tree struct{}

func becomeSubreaper() error                  { return ErrUnsupported }
func childrenOfSelf() map[int]bool            { return nil }
func newTree(int, map[int]bool, string) *tree { return &tree{} }
func (t *tree) sweep() (int, error)           { return 0, nil }
func (t *tree) watch()                        {}
