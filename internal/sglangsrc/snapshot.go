package sglangsrc

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Snapshot is one commit of a git directory, unpacked for Extract.
type Snapshot struct {
	Commit, Date string
}

// Unpack writes python/sglang/ of ref in gitDir into dst (an empty
// directory) and returns the commit ref names and its date.
func Unpack(ctx context.Context, gitDir, ref, dst string) (Snapshot, error) {
	out, err := git(ctx, gitDir, "log", "-1", "--format=%H %cs", ref+"^{commit}")
	if err != nil {
		return Snapshot{}, fmt.Errorf("unpack %s: %w", ref, err)
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return Snapshot{}, fmt.Errorf("unpack %s: git log said %q", ref, out)
	}
	s := Snapshot{Commit: f[0], Date: f[1]}
	archive := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "archive", "--format=tar", s.Commit, "python/sglang")
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dst)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return Snapshot{}, fmt.Errorf("unpack %s: %w", ref, err)
	}
	untar.Stdin = pipe
	var aErr, tErr bytes.Buffer
	archive.Stderr, untar.Stderr = &aErr, &tErr
	if err := untar.Start(); err != nil {
		return Snapshot{}, fmt.Errorf("unpack %s: tar: %w", ref, err)
	}
	if err := archive.Run(); err != nil {
		_ = untar.Wait()
		return Snapshot{}, fmt.Errorf("unpack %s: git archive: %w: %s", ref, err, bytes.TrimSpace(aErr.Bytes()))
	}
	if err := untar.Wait(); err != nil {
		return Snapshot{}, fmt.Errorf("unpack %s: tar: %w: %s", ref, err, bytes.TrimSpace(tErr.Bytes()))
	}
	return s, nil
}

func git(ctx context.Context, gitDir string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", gitDir}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
