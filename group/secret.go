package group

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sglaunch/sglaunch/plan"
)

// Where a rank finds the group's secret, first found first: the
// variable itself, a file the variable names, the profile's
// multinode.secret_file. The orchestrator supplies it: `sglaunch slurm`
// generates one per job, `sglaunch lws` a Kubernetes Secret per
// LeaderWorkerSet.
const (
	SecretVar     = plan.GroupSecretVar
	SecretFileVar = "SGLAUNCH_GROUP_SECRET_FILE"
)

// minSecret is the shortest secret taken (bytes, after trimming).
const minSecret = 16

// maxSecretFile bounds what is read of a secret file.
const maxSecretFile = 4096

// ErrNoSecret: a multi-node rank found no group secret, and the profile
// does not accept an unauthenticated channel.
var ErrNoSecret = errors.New("no group secret")

// LoadSecret returns the group's secret and where it came from. With no
// secret anywhere it returns ErrNoSecret, unless insecure (the profile's
// multinode.insecure_channel) accepts an unauthenticated channel: then
// nil and "".
func LoadSecret(getenv func(string) string, profileFile string, insecure bool) ([]byte, string, error) {
	if v := getenv(SecretVar); v != "" {
		s, err := checkSecret(v)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", SecretVar, err)
		}
		return s, SecretVar, nil
	}
	file, from := getenv(SecretFileVar), SecretFileVar
	if file == "" {
		file, from = profileFile, "multinode.secret_file"
	}
	if file != "" {
		s, err := readSecret(file)
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: %w", from, file, err)
		}
		return s, from + " " + file, nil
	}
	if insecure {
		return nil, "", nil
	}
	return nil, "", fmt.Errorf("%w: a multi-node group authenticates its control channel with a secret every rank shares; set %s (or %s, or multinode.secret_file) on every rank, as `sglaunch slurm` and `sglaunch lws` do, or accept an unauthenticated channel on a network you trust with multinode.insecure_channel: true",
		ErrNoSecret, SecretVar, SecretFileVar)
}

// readSecret reads a secret file, which other users must not read.
func readSecret(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if st.Mode().Perm()&0o004 != 0 {
		return nil, fmt.Errorf("readable by every user (mode %04o); chmod o-r it", st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("over %d bytes", maxSecretFile)
	}
	return checkSecret(string(b))
}

func checkSecret(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) < minSecret {
		return nil, fmt.Errorf("the secret is %d bytes, want at least %d (e.g. 32 random bytes, hex-encoded)", len(s), minSecret)
	}
	return []byte(s), nil
}
