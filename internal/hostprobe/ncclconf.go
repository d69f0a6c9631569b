package hostprobe

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// etcNCCLConf is NCCL's system-wide config file; tests point it elsewhere.
var etcNCCLConf = "/etc/nccl.conf"

// ConfEntry is one variable an NCCL config file would set.
type ConfEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	File  string `json:"file"`
}

// NCCLConf returns what NCCL's config files fill in for a process with
// environment env: $NCCL_CONF_FILE (or ~/.nccl.conf of the process's
// HOME), then /etc/nccl.conf. NCCL applies them at its first call with
// setenv(name, value, 0): a variable already in the environment is never
// overridden, and the first file to name a variable wins. Entries for
// variables the environment already holds are left out.
func NCCLConf(env map[string]string) ([]ConfEntry, error) {
	var files []string
	if f := env["NCCL_CONF_FILE"]; f != "" {
		files = append(files, f)
	} else if home := env["HOME"]; home != "" {
		files = append(files, filepath.Join(home, ".nccl.conf"))
	}
	files = append(files, etcNCCLConf)
	seen := map[string]bool{}
	var out []ConfEntry
	for _, file := range files {
		entries, err := readNCCLConf(file)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
				continue // NCCL silently ignores an unreadable file too
			}
			return nil, err
		}
		for _, e := range entries {
			if _, inEnv := env[e.Name]; inEnv || seen[e.Name] {
				continue
			}
			seen[e.Name] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// readNCCLConf parses NAME=VALUE lines as NCCL does: '#' starts a comment
// line, a line without '=' is skipped, the value is the rest of the line.
func readNCCLConf(file string) ([]ConfEntry, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ConfEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || name == "" {
			continue
		}
		out = append(out, ConfEntry{Name: name, Value: value, File: file})
	}
	return out, sc.Err()
}
