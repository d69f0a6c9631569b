package sglangsrc

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

//go:embed extract.py
var extractPy []byte

// Skipped is a file of the tree Python could not parse.
type Skipped struct {
	File string `json:"file"`
	Why  string `json:"why"`
}

// Extract parses the tree at root (which holds python/sglang/) and returns
// its tables, less Meta, and the files it could not parse.
func Extract(ctx context.Context, root string) (*sglangtab.Tables, []Skipped, error) {
	if _, err := os.Stat(filepath.Join(root, "python", "sglang")); err != nil {
		return nil, nil, fmt.Errorf("extract: %s holds no python/sglang: %w", root, err)
	}
	dir, err := os.MkdirTemp("", "sglangsrc-")
	if err != nil {
		return nil, nil, fmt.Errorf("extract: %w", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "extract.py")
	if err := os.WriteFile(script, extractPy, 0o644); err != nil {
		return nil, nil, fmt.Errorf("extract: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "python3", script, root)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("extract: python3 extract.py: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var out struct {
		sglangtab.Tables
		Skipped []Skipped `json:"skipped"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, nil, fmt.Errorf("extract: reading extract.py's output: %w", err)
	}
	return &out.Tables, out.Skipped, nil
}
